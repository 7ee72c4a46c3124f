import { readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Redis } from "ioredis";
import { isAlive } from "./child-processes.ts";

/** In a kept data dir, the redis-server working there: `{ pid, port }`, removed by a clean stop. */
const STATE_FILE = "starpost-redis.json";

export function recordServer(dir: string, pid: number | undefined, port: number): void {
  if (pid !== undefined) writeFileSync(join(dir, STATE_FILE), JSON.stringify({ pid, port }));
}

export function forgetServer(dir: string): void {
  rmSync(join(dir, STATE_FILE), { force: true });
}

/**
 * Shuts down the redis-server that a starter killed with SIGKILL (no handler of its runs) left
 * working in `dir`, before another starts there: two servers on one append-only file would
 * corrupt it. SHUTDOWN makes it write its file and exit. It is shut down only if it is the one the
 * state file names: answering on that port, with that pid, working in that dir; a pid or a port
 * taken since by anything else is left alone.
 */
export async function stopLeftover(dir: string, deadlineMs = 15_000): Promise<void> {
  let left: { pid: number; port: number };
  try {
    left = JSON.parse(readFileSync(join(dir, STATE_FILE), "utf8")) as { pid: number; port: number };
  } catch {
    return;
  }
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
