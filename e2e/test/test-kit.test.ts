import { execFile, spawn, type ChildProcess } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Starpost } from "@starpost/client";
import { parse } from "yaml";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { eventually, REPO_ROOT, startRedis, track, type RedisServer } from "@starpost/testkit";

/**
 * The test kit as a bot developer gets it (docs/testing-bots.md): the packed @starpost/client and
 * @starpost/cli installed with npm into a directory outside this workspace, beside grammY, vitest
 * and TypeScript from the npm registry; then the example bot repository (e2e/kit, the files the
 * guide shows): its CI job's steps as written (`starpost start` in the background on a Redis
 * service, `npm test`: `node --test`), `tsc --noEmit`, and vitest, whose setup file starts a
 * starpost of its own.
 */
const run = promisify(execFile);
const dir = mkdtempSync(join(tmpdir(), "starpost-kit-"));
const app = join(dir, "shop-bot");
let starpost: ChildProcess | undefined;
let redis: RedisServer | undefined;
let env: { STARPOST_URL: string; STARPOST_PLATFORM_TOKEN: string };

/** The version this workspace uses of a package, so the consumer tests against the same. */
function version(pkg: string): string {
  const where = existsSync(join(REPO_ROOT, "e2e/node_modules", pkg)) ? "e2e/node_modules" : "node_modules";
  return (JSON.parse(readFileSync(join(REPO_ROOT, where, pkg, "package.json"), "utf8")) as { version: string }).version;
}

/** Runs a command in the consumer's directory; its output is the failure's message. */
async function inApp(file: string, args: string[], extraEnv: Record<string, string> = {}, drop: string[] = []) {
  const childEnv: Record<string, string | undefined> = { ...process.env, NO_COLOR: "1", ...extraEnv };
  // Nothing of this workspace's own test run leaks into the consumer's.
  for (const name of [...drop, "VITEST", "VITEST_POOL_ID", "VITEST_WORKER_ID", "NODE_OPTIONS", "TEST", "FORCE_COLOR"])
    delete childEnv[name];
  try {
    return await run(file, args, { cwd: app, env: childEnv, maxBuffer: 16 << 20, timeout: 180_000 });
  } catch (err) {
    const { stdout, stderr } = err as { stdout?: string; stderr?: string };
    throw new Error(`${file} ${args.join(" ")} failed:\n${stdout ?? ""}\n${stderr ?? ""}`);
  }
}

beforeAll(async () => {
  await run("bash", [join(REPO_ROOT, "scripts/pack-kit.sh"), dir]); // `npm run pack:kit` without the setup
  cpSync(join(REPO_ROOT, "e2e/kit"), app, { recursive: true });
  await inApp("npm", [
    "install",
    "--no-audit",
    "--no-fund",
    "--prefer-offline",
    "--save-dev",
    join(dir, "starpost-client-0.1.0.tgz"),
    join(dir, "starpost-cli-0.1.0.tgz"),
    `grammy@${version("grammy")}`,
    `vitest@${version("vitest")}`,
    `typescript@${version("typescript")}`,
    `@types/node@${version("@types/node")}`,
  ]);
}, 300_000);

afterAll(async () => {
  // The background starpost outlives the step's bash, in its process group: Ctrl-C to the group.
  if (starpost?.pid) {
    try {
      process.kill(-starpost.pid, "SIGINT");
    } catch {
      // the group is gone
    }
    await eventually(() => !groupAlive(starpost!.pid!), 30_000, "the background starpost to stop");
  }
  await redis?.stop();
  rmSync(dir, { recursive: true, force: true });
});

function groupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch {
    return false;
  }
}

describe("the test kit, installed from its tarballs outside the workspace", () => {
  it("the CI job's steps (a Redis service, `starpost start` in the background, npm test) pass with the bot's test under node --test, which removes its bots by tag", async () => {
    redis = await startRedis();
    const workflow = parse(readFileSync(join(app, ".github/workflows/test.yml"), "utf8")) as {
      jobs: { test: { steps: { name?: string; run?: string }[] } };
    };
    const step = (name: string) => workflow.jobs.test.steps.find((s) => s.name === name)!.run!;
    const githubEnv = join(dir, "github-env");
    writeFileSync(githubEnv, "");
    // bash leads a process group of its own, which the starpost it leaves in the background keeps.
    starpost = track(
      spawn("bash", ["-e", "-c", step("Start starpost")], {
        cwd: app,
        env: { ...process.env, REDIS_URL: redis.url, RUNNER_TEMP: dir, GITHUB_ENV: githubEnv },
        stdio: "ignore",
        detached: true,
      }),
    );
    const code = await new Promise((resolve) => starpost!.once("exit", resolve));
    expect(code, readFileSync(join(dir, "starpost.log"), "utf8")).toBe(0);
    const lines = readFileSync(githubEnv, "utf8").trim().split("\n");
    env = Object.fromEntries(lines.map((l) => l.split(/=(.*)/s).slice(0, 2))) as typeof env;
    expect(Object.keys(env)).toEqual(["STARPOST_URL", "STARPOST_PLATFORM_TOKEN"]);
    expect(readFileSync(join(dir, "starpost.log"), "utf8")).toContain(`Redis            ${redis.url}`);

    const { stdout } = await inApp("bash", ["-e", "-c", step("Test")], env);
    expect(stdout).toMatch(/^# pass 1$/m);
    expect(stdout).toMatch(/^# fail 0$/m);
    const sp = new Starpost({ url: env.STARPOST_URL, platformToken: env.STARPOST_PLATFORM_TOKEN });
    expect(await sp.bots()).toEqual([]);
  });

  it("`starpost mcp` from the installed package answers the MCP SDK's client over stdio", async () => {
    const mcp = new Client({ name: "kit-test", version: "1.0.0" });
    await mcp.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [join(app, "node_modules/@starpost/cli/dist/starpost.mjs"), "mcp"],
        env: { PATH: process.env.PATH ?? "", ...env },
      }),
    );
    try {
      expect((await mcp.listTools()).tools.map((t) => t.name)).toContain("create_bot");
      const res = (await mcp.callTool({ name: "create_bot", arguments: { tag: "kit-mcp" } })) as {
        content: { text: string }[];
      };
      expect(JSON.parse(res.content[0]!.text)).toMatchObject({ api_root: env.STARPOST_URL });
      const sp = new Starpost({ url: env.STARPOST_URL, platformToken: env.STARPOST_PLATFORM_TOKEN });
      expect(await sp.deleteBots({ tag: "kit-mcp" })).toBe(1);
    } finally {
      await mcp.close();
    }
  });

  it("type-checks with the consumer's strict tsconfig (the client's declarations, grammY's, vitest's)", async () => {
    await inApp("npx", ["tsc", "--noEmit", "-p", "tsconfig.json"]);
  });

  it("passes under vitest, whose setup file starts and stops a starpost of its own", async () => {
    const { stdout } = await inApp("npx", ["vitest", "run"], {}, ["STARPOST_URL", "STARPOST_PLATFORM_TOKEN"]);
    expect(stdout).toMatch(/Tests\s+1 passed/);
  });

  it("`starpost start` without redis-server on the PATH and no REDIS_URL: one line saying how to install it, exit 1", async () => {
    const bin = join(dir, "node-only");
    mkdirSync(bin);
    symlinkSync(process.execPath, join(bin, "node"));
    const failed = await run(
      join(bin, "node"),
      [join(app, "node_modules/@starpost/cli/dist/starpost.mjs"), "start", "--data-dir", join(dir, "none")],
      { env: { PATH: bin } },
    ).catch((err: { code: number; stdout: string; stderr: string }) => err);
    expect(failed).toMatchObject({
      code: 1,
      stdout: "",
      stderr:
        "starpost: redis-server is not on the PATH: install it (Debian/Ubuntu: sudo apt-get install redis-server; macOS: brew install redis) or set REDIS_URL to a Redis you run\n",
    });
  });
});
