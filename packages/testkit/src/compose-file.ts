import { existsSync, readFileSync } from "node:fs";
import { dirname, join, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { parse } from "yaml";

/**
 * The repository root, with a trailing separator: the nearest folder above this file that holds
 * docker-compose.yml (this file is packages/testkit/src/compose-file.ts, or inlined into
 * dist/starpost.mjs by `pnpm run build`, or the @starpost/cli package, which holds a copy).
 */
export const REPO_ROOT = (() => {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, "docker-compose.yml"))) {
    if (dirname(dir) === dir)
      throw new Error("starpost: no docker-compose.yml above " + fileURLToPath(import.meta.url));
    dir = dirname(dir);
  }
  return dir + sep;
})();

export interface ComposeService {
  name: string;
  /** the source of the service's entry point, e.g. services/updates/src/main.ts. */
  entry: string;
  /** what the image runs (the compose `command`), e.g. dist/updates.mjs, built from `entry` by `pnpm run build`. */
  bundle: string;
  replicas: number;
  /** environment after `${VAR:-default}` interpolation against `env`. */
  environment: Record<string, string>;
  dependsOn: string[];
}

type Raw = {
  services: Record<
    string,
    {
      command?: string[];
      deploy?: { replicas?: number };
      environment?: Record<string, unknown>;
      depends_on?: Record<string, unknown> | string[];
      image?: string;
    }
  >;
};

/** `${VAR}`, `${VAR:-default}` and `${VAR:?message}` as compose interpolates them. */
export function interpolate(value: string, env: Record<string, string | undefined>): string {
  return value.replace(/\$\{([A-Z0-9_]+)(?::([-?])([^}]*))?\}/g, (_m, name: string, op?: string, arg?: string) => {
    const v = env[name];
    if (v !== undefined && v !== "") return v;
    if (op === "-") return arg ?? "";
    if (op === "?") throw new Error(`compose: ${name} is required: ${arg}`);
    return "";
  });
}

/**
 * The environment the image gives every process (the `ENV` lines of the Dockerfile's last stage):
 * NODE_ENV and the memory settings of node, V8 and glibc. `npm start`, the tests and the
 * benchmarks give their service processes the same, so the Dockerfile is the one place they are
 * set. Reads `ENV KEY=value ...` lines, values plain or in double quotes.
 */
export function readImageEnv(file = `${REPO_ROOT}Dockerfile`): Record<string, string> {
  const lines = readFileSync(file, "utf8").replace(/\\\n/g, " ").split("\n");
  const stage = lines.slice(lines.reduce((last, l, i) => (/^FROM\s/i.test(l) ? i : last), 0));
  const env: Record<string, string> = {};
  for (const line of stage.filter((l) => /^ENV\s/i.test(l)))
    for (const m of line.slice(4).matchAll(/([A-Za-z_][A-Za-z0-9_]*)=(?:"([^"]*)"|(\S*))/g)) env[m[1]!] = m[2] ?? m[3]!;
  return env;
}

/** The compose file's `redis` service command (or another Redis service's: `redis-node-1`), interpolated against `env`. */
export function readRedisCommand(
  env: Record<string, string | undefined> = process.env,
  file = `${REPO_ROOT}docker-compose.yml`,
  service = "redis",
): string[] {
  const raw = parse(readFileSync(file, "utf8"), { merge: true }) as Raw;
  return (raw.services[service]?.command ?? []).map((arg) => interpolate(arg, env));
}

/** `pnpm run build` bundles services/<name>/src/main.ts into dist/<name>.mjs. */
const BUNDLE = /^dist\/([a-z-]+)\.mjs$/;

/** The starpost services declared in docker-compose.yml (every service run from a bundle of the repo). */
export function readCompose(
  env: Record<string, string | undefined> = process.env,
  file = `${REPO_ROOT}docker-compose.yml`,
): ComposeService[] {
  const raw = parse(readFileSync(file, "utf8"), { merge: true }) as Raw;
  return Object.entries(raw.services)
    .filter(([, s]) => BUNDLE.test(s.command?.[0] ?? ""))
    .map(([name, s]) => ({
      name,
      entry: `services/${BUNDLE.exec(s.command![0]!)![1]}/src/main.ts`,
      bundle: s.command![0]!,
      replicas: s.deploy?.replicas ?? 1,
      environment: Object.fromEntries(
        Object.entries(s.environment ?? {}).map(([k, v]) => [k, interpolate(String(v), env)]),
      ),
      dependsOn: Array.isArray(s.depends_on) ? s.depends_on : Object.keys(s.depends_on ?? {}),
    }));
}
