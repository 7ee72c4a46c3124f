import { spawn, type ChildProcess } from "node:child_process";
import { stopProcess, track } from "./child-processes.ts";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** A free TCP port on 127.0.0.1, as chosen by the OS. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.unref();
    srv.on("error", reject);
    srv.listen(0, "127.0.0.1", () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => resolve(port));
    });
  });
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
 * port `replicaOf` when given. Data goes to a temp dir removed
 * at stop, or to `dir`, which is kept (and stop is a clean shutdown that writes the AOF).
 */
export async function startRedis(
  opts: { appendonly?: boolean; dir?: string; appendfsync?: "always" | "everysec"; replicaOf?: number } = {},
): Promise<RedisServer> {
  const port = await freePort();
  const dir = opts.dir ?? mkdtempSync(join(tmpdir(), "starpost-redis-"));
  const args = ["--port", String(port), "--bind", "127.0.0.1", "--dir", dir, "--save", "", "--protected-mode", "no"];
  args.push("--appendonly", opts.appendonly ? "yes" : "no", "--appendfsync", opts.appendfsync ?? "always");
  if (opts.replicaOf) args.push("--replicaof", "127.0.0.1", String(opts.replicaOf));
  const launch = () => track(spawn("redis-server", args, { stdio: "ignore" }));
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
      if (opts.dir) return stopProcess(server.process, "SIGTERM");
      await stopProcess(server.process, "SIGKILL");
      rmSync(dir, { recursive: true, force: true });
    },
  };
  await waitForPort(port, server.process);
  return server;
}
