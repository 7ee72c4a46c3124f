import { spawn, type ChildProcess } from "node:child_process";
import { stopProcess, track } from "./child-processes.ts";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { forgetServer, recordServer, stopLeftover } from "./redis-leftover.ts";

/**
 * Ports handed to processes the tests start (redis-server, the services) are taken below Linux's
 * ephemeral range (32768+), where the kernel picks the local ports of outgoing connections: a port
 * chosen by binding port 0, closed, then bound again by a child process could meanwhile become
 * the source port of any connection the suite opens, and the child's bind would fail, or worse, a
 * readiness probe would reach another stack's process. Each test fork (VITEST_POOL_ID) has its own
 * block, walked in order from a random start, and a port is handed out only if it can be bound.
 */
const PORT_BASE = 20_000;
const PORT_BLOCK = 1_500;
const portBlock = PORT_BASE + (Number(process.env.VITEST_POOL_ID ?? 0) % 8) * PORT_BLOCK;
let nextPort = Math.floor(Math.random() * PORT_BLOCK);

function canListen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const srv = createServer();
    srv.unref();
    srv.once("error", () => resolve(false));
    srv.listen(port, "127.0.0.1", () => srv.close(() => resolve(true)));
  });
}

/** A free TCP port on 127.0.0.1 for a process the tests start (see above). */
export async function freePort(): Promise<number> {
  for (let i = 0; i < PORT_BLOCK; i++) {
    const port = portBlock + (nextPort++ % PORT_BLOCK);
    if (await canListen(port)) return port;
  }
  throw new Error(`no free port in ${portBlock}-${portBlock + PORT_BLOCK - 1}`);
}

export interface RedisServer {
  url: string;
  port: number;
  dir: string;
  process: ChildProcess;
  /** SIGKILL, or a clean shutdown, then start again on the same port and data dir (AOF reload). */
  restart(opts?: { kill?: boolean }): Promise<void>;
  /** starts the server again after it died (a supervisor's restart); does not wait for it. */
  respawn(): ChildProcess;
  stop(): Promise<void>;
}

async function waitForPort(port: number, child: ChildProcess): Promise<void> {
  const { Socket } = await import("node:net");
  for (let i = 0; i < 200; i++) {
    if (child.exitCode !== null) throw new Error(`redis-server exited with ${child.exitCode}`);
    const ok = await new Promise<boolean>((resolve) => {
      const s = new Socket();
      s.once("connect", () => {
        s.destroy();
        resolve(true);
      });
      s.once("error", () => resolve(false));
      s.connect(port, "127.0.0.1");
    });
    if (ok) return;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`redis-server did not listen on ${port}`);
}

/**
 * Starts a private redis-server on a free port; AOF on when asked; a replica of the server on
 * port `replicaOf` when given; with `maxmemory` (bytes, or with a unit: "1gb"), writes past it
 * are refused, never evicted (`noeviction`). Data goes to a temp dir removed
 * at stop, or to `dir`, which is kept (and stop is a clean shutdown that writes the AOF); a server
 * a killed starter left working in `dir` is shut down first (redis-leftover.ts).
 */
export async function startRedis(
  opts: {
    appendonly?: boolean;
    dir?: string;
    appendfsync?: "always" | "everysec";
    replicaOf?: number;
    maxmemory?: string;
    /** in a process group of its own (see ProcessStackOptions.ownProcessGroups). */
    ownProcessGroup?: boolean;
  } = {},
): Promise<RedisServer> {
  const port = await freePort();
  const dir = opts.dir ?? mkdtempSync(join(tmpdir(), "starpost-redis-"));
  const args = ["--port", String(port), "--bind", "127.0.0.1", "--dir", dir, "--save", "", "--protected-mode", "no"];
  args.push("--appendonly", opts.appendonly ? "yes" : "no", "--appendfsync", opts.appendfsync ?? "always");
  if (opts.replicaOf) args.push("--replicaof", "127.0.0.1", String(opts.replicaOf));
  if (opts.maxmemory) args.push("--maxmemory", opts.maxmemory, "--maxmemory-policy", "noeviction");
  if (opts.dir) await stopLeftover(opts.dir);
  const launch = () => {
    const child = track(spawn("redis-server", args, { stdio: "ignore", detached: opts.ownProcessGroup === true }));
    if (opts.dir) recordServer(opts.dir, child.pid, port);
    return child;
  };
  const server: RedisServer = {
    url: `redis://127.0.0.1:${port}`,
    port,
    dir,
    process: launch(),
    respawn: () => (server.process = launch()),
    async restart({ kill = false } = {}) {
      await stopProcess(server.process, kill ? "SIGKILL" : "SIGTERM");
      server.process = launch();
      await waitForPort(port, server.process);
    },
    async stop() {
      if (opts.dir) {
        await stopProcess(server.process, "SIGTERM");
        return forgetServer(opts.dir);
      }
      await stopProcess(server.process, "SIGKILL");
      rmSync(dir, { recursive: true, force: true });
    },
  };
  await waitForPort(port, server.process);
  return server;
}
