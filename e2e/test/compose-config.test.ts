import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ALL_CONFIG_SCHEMAS, parseConfig } from "@starpost/shared";
import { readCompose, readImageEnv, readRedisCommand, REPO_ROOT } from "@starpost/testkit";

// The compose file is checked against the services' real config schemas: every variable it sets
// exists and parses (`npm run test:compose` then runs it on a Docker engine).
describe("docker-compose.yml", () => {
  const env = { PLATFORM_TOKEN: "a-platform-token-for-the-check", INTERNAL_TOKEN: "an-internal-token-for-the-check" };
  const services = readCompose(env);

  it("declares the four services", () => {
    expect(services.map((s) => s.name).sort()).toEqual(["gateway", "invoices", "updates", "webhook-worker"]);
    expect(services.find((s) => s.name === "webhook-worker")!.replicas).toBeGreaterThanOrEqual(2);
  });

  for (const service of readCompose(env)) {
    it(`sets only variables ${service.name} reads, and they parse`, () => {
      const schema = ALL_CONFIG_SCHEMAS[service.name as keyof typeof ALL_CONFIG_SCHEMAS];
      expect(schema).toBeDefined();
      const known = Object.keys(schema.shape);
      expect(Object.keys(service.environment).filter((k) => !known.includes(k))).toEqual([]);
      expect(() => parseConfig(schema, service.environment)).not.toThrow();
      expect(service.bundle).toBe(`dist/${service.name}.mjs`);
      expect(service.entry).toBe(`services/${service.name}/src/main.ts`);
    });

    it(`passes ${service.name} every variable it reads, an unset one meaning its default`, () => {
      const schema = ALL_CONFIG_SCHEMAS[service.name as keyof typeof ALL_CONFIG_SCHEMAS];
      // INTERNAL_SOCKET_DIR: containers share no folder; npm start gives it to every process.
      const notPassed = ["INTERNAL_SOCKET_DIR"];
      const missing = Object.keys(schema.shape).filter((k) => !(k in service.environment) && !notPassed.includes(k));
      expect(missing, "add `VAR: ${VAR:-}` to docker-compose.yml").toEqual([]);
      // `${VAR:-}` unset gives the service an empty value: the same as not set at all.
      const parsed = parseConfig(schema, service.environment) as Record<string, unknown>;
      for (const [k, v] of Object.entries(service.environment)) {
        if (v !== "") continue;
        const field = (schema.shape as Record<string, { safeParse(v: unknown): { data?: unknown } }>)[k]!;
        expect(parsed[k], k).toEqual(field.safeParse(undefined).data);
      }
    });
  }

  it("runs Redis with the append-only file fsynced on every write unless REDIS_APPENDFSYNC says otherwise", () => {
    const command = (env: Record<string, string>) => readRedisCommand(env);
    const option = (args: string[], name: string) => args[args.indexOf(name) + 1];
    expect(option(command({}), "--appendonly")).toBe("yes");
    expect(option(command({}), "--appendfsync")).toBe("always");
    expect(option(command({ REDIS_APPENDFSYNC: "everysec" }), "--appendfsync")).toBe("everysec");
  });

  it("runs every Redis (the cluster profile's nodes too) with maxmemory REDIS_MAXMEMORY, refusing writes past it", () => {
    const option = (args: string[], name: string) => args[args.indexOf(name) + 1];
    for (const service of ["redis", "redis-node-1", "redis-node-6"]) {
      const command = (env: Record<string, string>) => readRedisCommand(env, undefined, service);
      expect(option(command({}), "--maxmemory")).toBe("1gb");
      expect(option(command({ REDIS_MAXMEMORY: "300mb" }), "--maxmemory")).toBe("300mb");
      expect(option(command({}), "--maxmemory-policy")).toBe("noeviction");
    }
  });

  it("refuses to start without a platform token or an internal token: no default secrets", () => {
    expect(() => readCompose({ INTERNAL_TOKEN: env.INTERNAL_TOKEN })).toThrow(/PLATFORM_TOKEN is required/);
    expect(() => readCompose({ PLATFORM_TOKEN: env.PLATFORM_TOKEN })).toThrow(/INTERNAL_TOKEN is required/);
  });

  /** The command compose's error for a missing `name` says to run. */
  const advice = (name: string, given: Record<string, string>) => {
    try {
      readCompose(given);
    } catch (err) {
      const message = (err as Error).message;
      expect(message).toMatch(new RegExp(`^compose: ${name} is required: `));
      expect(message).not.toContain("\n");
      return message.slice(message.indexOf(", run: ") + ", run: ".length);
    }
    throw new Error(`readCompose did not refuse a missing ${name}`);
  };

  it("says in one line how to make both secrets in .env, the README's command, which keeps what .env has", () => {
    const command = advice("PLATFORM_TOKEN", { INTERNAL_TOKEN: env.INTERNAL_TOKEN });
    expect(advice("INTERNAL_TOKEN", { PLATFORM_TOKEN: env.PLATFORM_TOKEN })).toBe(command);
    expect(readFileSync(`${REPO_ROOT}README.md`, "utf8")).toContain(command);

    const dir = mkdtempSync(join(tmpdir(), "starpost-dotenv-"));
    const run = () => execFileSync("sh", ["-c", command], { cwd: dir });
    const dotenv = () =>
      Object.fromEntries(
        readFileSync(join(dir, ".env"), "utf8")
          .trim()
          .split("\n")
          .map((l) => [l.slice(0, l.indexOf("=")), l.slice(l.indexOf("=") + 1)]),
      );
    writeFileSync(join(dir, ".env"), "PORT=8090\nINTERNAL_TOKEN=kept-internal-token-0123456789\n");
    run();
    const made = dotenv();
    expect(Object.keys(made)).toEqual(["PORT", "INTERNAL_TOKEN", "PLATFORM_TOKEN"]);
    expect(made.INTERNAL_TOKEN).toBe("kept-internal-token-0123456789");
    expect(made.PLATFORM_TOKEN).toMatch(/^[0-9a-f]{48}$/);
    run();
    expect(dotenv()).toEqual(made);
    expect(() => readCompose(made)).not.toThrow();
  });

  it("publishes the gateway's port and no other", () => {
    const lines = readFileSync(`${REPO_ROOT}docker-compose.yml`, "utf8").split("\n");
    const owners = lines.flatMap((line, i) => {
      if (!/^\s+ports:/.test(line)) return [];
      const header = lines
        .slice(0, i)
        .reverse()
        .find((l) => /^ {2}[a-z0-9-]+:/.test(l))!;
      return [header.trim().replace(/:.*/, "")];
    });
    expect(owners).toEqual(["gateway"]);
  });
});

// npm start, the tests and the benchmarks give their service processes the image's environment.
describe("the Dockerfile's environment", () => {
  it("sets NODE_ENV and node's memory settings in the image's last stage", () => {
    const env = readImageEnv();
    expect(env.NODE_ENV).toBe("production");
    expect(env.GLIBC_TUNABLES).toMatch(/glibc\.malloc\.trim_threshold=\d+/);
  });

  it("reads ENV lines of the last stage only: several per line, quoted, continued", () => {
    const file = join(mkdtempSync(join(tmpdir(), "starpost-dockerfile-")), "Dockerfile");
    writeFileSync(
      file,
      [
        "FROM base AS build",
        "ENV BUILD_ONLY=1",
        "FROM base",
        'ENV A=1 B="two words" \\',
        "    C=3",
        "RUN echo ENV=not-this",
        "env D=4",
      ].join("\n"),
    );
    expect(readImageEnv(file)).toEqual({ A: "1", B: "two words", C: "3", D: "4" });
  });
});

describe("the configuration table (docs/operations.md)", () => {
  it("lists every variable a service reads", () => {
    const doc = readFileSync(new URL("../../docs/operations.md", import.meta.url), "utf8");
    const table = doc.slice(doc.indexOf("## Configuration"), doc.indexOf("## Running one service on its own"));
    const variables = new Set(Object.values(ALL_CONFIG_SCHEMAS).flatMap((s) => Object.keys(s.shape)));
    expect([...variables].filter((v) => !table.includes(`\`${v}\``))).toEqual([]);
  });
});
