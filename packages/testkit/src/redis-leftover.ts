import { spawnSync } from "node:child_process";
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { HAS_PROC, isAlive, procStat } from "./child-processes.ts";

/**
 * In a kept data dir, the redis-server working there and the process that started it (`owner`,
 * with its start time, to tell it from a process given its pid since): removed by a clean stop.
 */
const STATE_FILE = "starpost-redis.json";

interface ServerState {
  pid: number;
  port: number;
  owner: number;
  ownerStarted: string | undefined;
}

const readState = (dir: string): ServerState | undefined => {
  try {
    return JSON.parse(readFileSync(join(dir, STATE_FILE), "utf8")) as ServerState;
  } catch {
    return undefined;
  }
};

/** When the process started (ticks since boot); undefined without /proc. */
const startedAt = (pid: number): string | undefined => procStat(pid)?.[19];

/** A process's command line as `ps` shows it (redis-server rewrites its own: `redis-server 127.0.0.1:<port>`). */
function commandOf(pid: number): string | undefined {
  if (HAS_PROC) {
    try {
      return readFileSync(`/proc/${pid}/cmdline`, "utf8").replaceAll("\0", " ");
    } catch {
      return undefined;
    }
  }
  const ps = spawnSync("ps", ["-p", String(pid), "-o", "command="], { encoding: "utf8" });
  return ps.status === 0 ? ps.stdout : undefined;
}

export function recordServer(dir: string, pid: number | undefined, port: number): void {
  if (pid === undefined) return;
  const state: ServerState = { pid, port, owner: process.pid, ownerStarted: startedAt(process.pid) };
  writeFileSync(join(dir, STATE_FILE), JSON.stringify(state));
}

export function forgetServer(dir: string): void {
  rmSync(join(dir, STATE_FILE), { force: true });
}

/**
 * The pid of the process, other than this one, that started the redis-server working in `dir`
 * and still runs (a starter already running there), if any.
 */
export function dirOwner(dir: string): number | undefined {
  const state = readState(dir);
  if (!state || state.owner === process.pid || !isAlive(state.owner)) return undefined;
  return startedAt(state.owner) === state.ownerStarted ? state.owner : undefined;
}

/**
 * Stops the redis-server that a starter killed with SIGKILL (no handler of its runs) left working
 * in `dir`, before another starts there: two servers on one append-only file would corrupt it.
 * It is the one the state file names if that pid is a redis-server serving that port (its title);
 * SIGTERM makes it write its file and exit, as SHUTDOWN does. A pid taken since by anything else is
 * left alone; one that cannot be told, or a server that does not stop, is an error, never a second
 * server beside it. So is a server whose starter still runs.
 */
export async function stopLeftover(dir: string, deadlineMs = 15_000): Promise<void> {
  const left = readState(dir);
  if (!left) return;
  const owner = dirOwner(dir);
  if (owner !== undefined) throw new Error(`process ${owner} runs a redis-server in ${dir}`);
  if (!isAlive(left.pid)) return forgetServer(dir);
  const command = commandOf(left.pid);
  if (command === undefined) {
    throw new Error(
      `process ${left.pid} may be a redis-server left working in ${dir}: stop it, then remove ${STATE_FILE}`,
    );
  }
  if (!command.includes("redis-server") || !command.includes(`:${left.port}`)) return forgetServer(dir);
  process.kill(left.pid, "SIGTERM");
  const until = Date.now() + deadlineMs;
  while (isAlive(left.pid)) {
    if (Date.now() > until) throw new Error(`the redis-server left working in ${dir} (pid ${left.pid}) did not stop`);
    await new Promise((r) => setTimeout(r, 50));
  }
  forgetServer(dir);
}
