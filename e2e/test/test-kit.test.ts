import { execFile, spawn, type ChildProcess } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Starpost } from "@starpost/client";
import { eventually, REPO_ROOT, stopProcess, track } from "@starpost/testkit";

/**
 * The test kit as a bot developer gets it (docs/testing-bots.md): the packed @starpost/client and
 * @starpost/cli installed with npm into a directory outside this workspace, beside grammY, vitest
 * and TypeScript from the npm registry; `starpost start` in the background; then the example bot
 * repository's test (e2e/kit, the files the guide shows) under `node --test`, `tsc --noEmit` and
 * vitest, whose setup file starts a starpost of its own.
 */
const run = promisify(execFile);
const dir = mkdtempSync(join(tmpdir(), "starpost-kit-"));
const app = join(dir, "shop-bot");
let starpost: ChildProcess | undefined;
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
  for (const pkg of ["client", "cli"])
    await run("npm", ["pack", "--silent", "--pack-destination", dir], { cwd: join(REPO_ROOT, "packages", pkg) });
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
  if (starpost?.pid) process.kill(-starpost.pid, "SIGINT");
  if (starpost) await stopProcess(starpost, "SIGINT", 20_000);
  rmSync(dir, { recursive: true, force: true });
});

describe("the test kit, installed from its tarballs outside the workspace", () => {
  it("`npx starpost start` prints the export line; the bot's test passes under node --test and removes its bots by tag", async () => {
    starpost = track(
      spawn("npx", ["starpost", "start", "--port", "0", "--data-dir", join(dir, "data")], {
        cwd: app,
        stdio: ["ignore", "pipe", "pipe"],
        detached: true,
      }),
    );
    const lines: string[] = [];
    for (const s of [starpost.stdout!, starpost.stderr!])
      createInterface({ input: s }).on("line", (l) => lines.push(l));
    await eventually(
      () => lines.some((l) => l.startsWith("export STARPOST_URL=")),
      90_000,
      () => lines.join("\n"),
    );
    const exported = lines.find((l) => l.startsWith("export STARPOST_URL="))!;
    env = Object.fromEntries([...exported.matchAll(/(\w+)=(\S+)/g)].map((m) => [m[1], m[2]])) as typeof env;
    expect(Object.keys(env)).toEqual(["STARPOST_URL", "STARPOST_PLATFORM_TOKEN"]);

    const { stdout } = await inApp("node", ["--test", "test/shop.test.js"], env);
    expect(stdout).toMatch(/^# pass 1$/m);
    expect(stdout).toMatch(/^# fail 0$/m);
    const sp = new Starpost({ url: env.STARPOST_URL, platformToken: env.STARPOST_PLATFORM_TOKEN });
    expect(await sp.bots()).toEqual([]);
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
