/**
 * Broken infrastructure, as an operator meets it with `npm start`:
 *
 * - `npm start` with REDIS_URL at a port where nothing listens, and with its PORT taken by another
 *   program: how long until it exits, and the line it printed (the cause, in one line);
 * - a running `npm start` whose Redis is frozen (SIGSTOP: connections stay open, nothing is
 *   answered): how long /readyz takes to answer, and what.
 *
 *   node --import tsx bench/run.ts bad-start
 */
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { freePort, REPO_ROOT, stopProcess } from "@starpost/testkit";
import { processName, processTree } from "./lib/processes.ts";
import { report, type Figure } from "./lib/report.ts";

const PLATFORM_TOKEN = "bench-platform-token-0123456789";
/** Past this a start that did not exit is stopped and counted as never exiting. */
const GIVE_UP_MS = 40_000;

interface Run {
  ms: number;
  code: number | null;
  stderr: string[];
}

/** `npm start` (built first, as a user runs it) in a process group of its own, until it exits or GIVE_UP_MS. */
async function npmStart(env: Record<string, string>, untilRunning?: (pid: number) => Promise<void>): Promise<Run> {
  const data = mkdtempSync(join(tmpdir(), "starpost-bad-start-"));
  const started = performance.now();
  const child = spawn("npm", ["start", "--silent"], {
    cwd: REPO_ROOT,
    env: { ...process.env, PLATFORM_TOKEN, STARPOST_DATA_DIR: data, LOG_LEVEL: "warn", ...env },
    stdio: ["ignore", "pipe", "pipe"],
    detached: true,
  });
  const stderr: string[] = [];
  createInterface({ input: child.stderr! }).on("line", (l) => stderr.push(l));
  const exited = new Promise<number | null>((r) => child.once("exit", (code) => r(code)));
  try {
    if (untilRunning) {
      await new Promise<void>((resolve, reject) => {
        void exited.then((code) => reject(new Error(`npm start exited ${code}: ${stderr.join(" / ")}`)));
        createInterface({ input: child.stdout! }).on("line", (l) => l.startsWith("starpost is running") && resolve());
      });
      await untilRunning(child.pid!);
    }
    const code = await Promise.race([exited, new Promise<"up">((r) => setTimeout(() => r("up"), GIVE_UP_MS))]);
    return { ms: code === "up" ? Infinity : performance.now() - started, code: code === "up" ? null : code, stderr };
  } finally {
    try {
      process.kill(-child.pid!, "SIGINT");
    } catch {
      // the whole group is gone already
    }
    await Promise.race([exited, new Promise((r) => setTimeout(r, 20_000))]);
    await stopProcess(child, "SIGKILL");
    rmSync(data, { recursive: true, force: true });
  }
}

/** The redis-server under a process tree (the private one `npm start` runs). */
function redisPid(root: number): number {
  const pid = processTree(root).find((p) => processName(p) === "redis-server");
  if (pid === undefined) throw new Error("no redis-server under npm start");
  return pid;
}

const exitFigure = (name: string, run: Run): Figure => ({
  bench: "bad-start",
  name,
  value: Number.isFinite(run.ms) ? run.ms / 1000 : GIVE_UP_MS / 1000,
  unit: "s",
  target: "<= 10",
  note: Number.isFinite(run.ms)
    ? `exit ${run.code}; ${run.stderr.length} stderr line(s): ${run.stderr.join(" / ")}`
    : `still running after ${GIVE_UP_MS / 1000} s`,
});

const closed = await freePort();
const unreachable = await npmStart({ REDIS_URL: `redis://127.0.0.1:${closed}` });

const taken = createServer(() => undefined);
const takenPort = await freePort();
await new Promise<void>((r) => taken.listen(takenPort, "127.0.0.1", r));
const portTaken = await npmStart({ PORT: String(takenPort) }).finally(() => taken.close());

let readyz = { ms: Infinity, status: 0 };
const gatewayPort = await freePort();
await npmStart({ PORT: String(gatewayPort) }, async (pid) => {
  const redis = redisPid(pid);
  process.kill(redis, "SIGSTOP");
  try {
    const started = performance.now();
    const res = await fetch(`http://127.0.0.1:${gatewayPort}/readyz`, { signal: AbortSignal.timeout(5_000) }).catch(
      () => undefined,
    );
    readyz = { ms: performance.now() - started, status: res?.status ?? 0 };
  } finally {
    process.kill(redis, "SIGCONT");
  }
  // Stop it now: the run is measured.
  process.kill(-pid, "SIGINT");
});

report([
  exitFigure("npm start with Redis unreachable: exits naming it", unreachable),
  exitFigure("npm start with its port taken: exits naming it", portTaken),
  {
    bench: "bad-start",
    name: "/readyz with Redis frozen",
    value: readyz.ms,
    unit: "ms",
    target: "<= 1000",
    note: readyz.status ? `answered ${readyz.status}` : "no answer within 5 s",
  },
]);
