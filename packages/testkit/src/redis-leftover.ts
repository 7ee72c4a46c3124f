import { readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Redis } from "ioredis";
import { isAlive } from "./child-processes.ts";

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

/** When the process started (ticks since boot, /proc/<pid>/stat's 22nd field); undefined without /proc. */
function startedAt(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2).split(" ")[19];
  } catch {
    return undefined;
  }
}

export function recordServer(dir: string, pid: number | undefined, port: number): void {
  if (pid === undefined) return;
  const state: ServerState = { pid, port, owner: process.pid, ownerStarted: startedAt(process.pid) };
  writeFileSync(join(dir, STATE_FILE), JSON.stringify(state));
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

export function forgetServer(dir: string): void {
  rmSync(join(dir, STATE_FILE), { force: true });
}

/**
 * Shuts down the redis-server that a starter killed with SIGKILL (no handler of its runs) left
 * working in `dir`, before another starts there: two servers on one append-only file would
 * corrupt it. SHUTDOWN makes it write its file and exit. It is shut down only if it is the one the
 * state file names: answering on that port, with that pid, working in that dir; a pid or a port
 * taken since by anything else is left alone. One whose starter still runs is not a leftover:
 * that is an error.
 */
export async function stopLeftover(dir: string, deadlineMs = 15_000): Promise<void> {
  const left = readState(dir);
  if (!left) return;
  const owner = dirOwner(dir);
  if (owner !== undefined) throw new Error(`process ${owner} runs a redis-server in ${dir}`);
  if (!isAlive(left.pid)) return forgetServer(dir);
  const client = new Redis({
    host: "127.0.0.1",
    port: left.port,
    lazyConnect: true,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
    connectTimeout: 2000,
    commandTimeout: 2000,
  });
  client.on("error", () => undefined);
  try {
    await client.connect();
    const info = await client.info("server");
    const [, workDir] = (await client.config("GET", "dir")) as [string, string];
    if (!info.includes(`\nprocess_id:${left.pid}\r`) || realpathSync(workDir) !== realpathSync(dir)) return;
    await client.call("SHUTDOWN").catch(() => undefined); // its connection closes as it exits
  } catch {
    return; // not a redis-server on that port: not ours
  } finally {
    client.disconnect();
  }
  const until = Date.now() + deadlineMs;
  while (isAlive(left.pid)) {
    if (Date.now() > until) throw new Error(`the redis-server left working in ${dir} (pid ${left.pid}) did not stop`);
    await new Promise((r) => setTimeout(r, 50));
  }
  forgetServer(dir);
}
