import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import {
  freePort,
  REPO_ROOT,
  StartFailure,
  startProcessStack,
  startRedis,
  stopProcess,
  track,
  type RedisServer,
} from "@starpost/testkit";

/**
 * `npm start` (`starpost start`) that cannot run says why in one line and exits non-zero within
 * 10 s, with no stack trace, instead of running without a part of the stack.
 */
const WITHIN_MS = 10_000;
const dirs: string[] = [];
const servers: Server[] = [];
const sockets = new Set<Socket>();
let redis: RedisServer | undefined;
afterAll(async () => {
  for (const s of sockets) s.destroy();
  for (const s of servers) s.close();
  await redis?.stop();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

const dataDir = () => {
  const dir = mkdtempSync(join(tmpdir(), "starpost-start-fail-"));
  dirs.push(dir);
  return dir;
};

/** A TCP server on a free port that accepts connections and never answers (a frozen program). */
async function silentPort(): Promise<number> {
  const port = await freePort();
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.on("error", () => undefined);
  });
  servers.push(server);
  await new Promise<void>((r) => server.listen(port, "127.0.0.1", r));
  return port;
}

/** Runs `starpost start` from the sources; resolves when it exits (killed if it is still up past the limit). */
async function start(env: Record<string, string>) {
  const started = Date.now();
  const child = track(
    spawn(process.execPath, ["--import", "tsx", "packages/cli/src/main.ts", "start"], {
      cwd: REPO_ROOT,
      env: { PATH: process.env.PATH ?? "", STARPOST_FROM_SOURCE: "true", STARPOST_DATA_DIR: dataDir(), ...env },
      stdio: ["ignore", "pipe", "pipe"],
    }),
  );
  let stdout = "";
  let stderr = "";
  child.stdout!.on("data", (d: Buffer) => (stdout += d.toString()));
  child.stderr!.on("data", (d: Buffer) => (stderr += d.toString()));
  const limit = setTimeout(() => void stopProcess(child, "SIGKILL"), WITHIN_MS + 5_000);
  const code = await new Promise<number | null>((r) => child.once("close", (c) => r(c)));
  clearTimeout(limit);
  return { code, ms: Date.now() - started, stdout, lines: stderr.split("\n").filter((l) => l !== "") };
}

function expectOneLine(run: Awaited<ReturnType<typeof start>>, line: RegExp) {
  expect(run.lines, run.stdout).toHaveLength(1);
  expect(run.lines[0]).toMatch(line);
  expect(run.lines[0]).not.toMatch(/^\s+at /);
  expect(run.code).toBe(1);
  expect(run.ms).toBeLessThan(WITHIN_MS);
  expect(run.stdout).not.toMatch(/starpost is running/);
}

describe("starpost start stops at once, naming why in one line", () => {
  it("when nothing listens at REDIS_URL", async () => {
    const port = await freePort();
    const run = await start({ REDIS_URL: `redis://:a-password@127.0.0.1:${port}`, PORT: "0" });
    expectOneLine(
      run,
      new RegExp(`^starpost: Redis at 127\\.0\\.0\\.1:${port} \\(REDIS_URL\\) is unreachable \\(ECONNREFUSED\\)`),
    );
    expect(run.lines[0]).not.toContain("a-password");
  }, 30_000);

  it("when Redis at REDIS_URL does not answer", async () => {
    const port = await silentPort();
    const run = await start({ REDIS_URL: `redis://127.0.0.1:${port}`, PORT: "0" });
    expectOneLine(
      run,
      new RegExp(`^starpost: Redis at 127\\.0\\.0\\.1:${port} \\(REDIS_URL\\) did not answer within 3 s`),
    );
  }, 30_000);

  it("when its port is in use", async () => {
    const port = await silentPort();
    const run = await start({ PORT: String(port) });
    expectOneLine(run, new RegExp(`^starpost: port ${port} is in use \\(set PORT`));
  }, 30_000);

  it("when PLATFORM_TOKEN is too short", async () => {
    const run = await start({ PLATFORM_TOKEN: "short", PORT: "0" });
    expectOneLine(run, /^starpost: invalid environment variable PLATFORM_TOKEN: must be at least 16 characters$/);
  }, 30_000);

  it("when a service's setting is bad", async () => {
    const run = await start({ REDIS_COMMAND_TIMEOUT_MS: "soon", PORT: "0" });
    expectOneLine(run, /^starpost: invalid environment variable REDIS_COMMAND_TIMEOUT_MS: /);
  }, 30_000);

  it("when the data dir cannot be written", async () => {
    const file = join(dataDir(), "a-file");
    writeFileSync(file, "");
    const run = await start({ STARPOST_DATA_DIR: join(file, "data"), PORT: "0" });
    expectOneLine(run, /^starpost: the data dir .*a-file\/data is not writable \(ENOTDIR\)/);
  }, 30_000);
});

it("a service that exits while the stack starts fails the start with its reason, read from its output", async () => {
  // Past the starter's own check (a port taken between the check and the gateway's listen): the
  // port's program accepts and never answers, so only the gateway's own exit can tell.
  redis = await startRedis();
  const port = await silentPort();
  const started = Date.now();
  const failure = await startProcessStack({
    redisUrl: redis.url,
    gatewayPort: port,
    env: { PLATFORM_TOKEN: "a-platform-token-for-the-check", INTERNAL_TOKEN: "an-internal-token-for-the-check" },
  }).then(
    () => undefined,
    (err: Error) => err,
  );
  expect(failure).toBeInstanceOf(StartFailure);
  expect((failure as StartFailure).process).toBe("gateway");
  expect((failure as StartFailure).reason).toBe(`port ${port} is in use`);
  expect(Date.now() - started).toBeLessThan(WITHIN_MS * 2);
}, 60_000);
