/**
 * What `starpost start` checks before it starts anything, so that what would stop the stack is
 * said at once in one line (and exit 1) instead of in a service's log: each check answers the
 * line, or undefined when all is well.
 */
import { spawnSync } from "node:child_process";
import { accessSync, constants, mkdirSync } from "node:fs";
import { createServer, connect as tcpConnect, type Socket } from "node:net";
import { connect as tlsConnect } from "node:tls";
import { ALL_CONFIG_SCHEMAS, ConfigError, parseConfig } from "../../shared/src/config.ts";
import type { ComposeService } from "../../testkit/src/compose-file.ts";
import { dirOwner } from "../../testkit/src/redis-leftover.ts";

/** How long Redis at REDIS_URL has to answer a PING: a healthy one answers in a millisecond. */
const REDIS_CHECK_MS = 3_000;

/** Without REDIS_URL a redis-server must be on the PATH. */
export function redisServerMissing(env: NodeJS.ProcessEnv): string | undefined {
  if (env.REDIS_URL) return undefined;
  const probe = spawnSync("redis-server", ["--version"], { stdio: "ignore" });
  if (probe.error === undefined && probe.status === 0) return undefined;
  return "redis-server is not on the PATH: install it (Debian/Ubuntu: sudo apt-get install redis-server; macOS: brew install redis) or set REDIS_URL to a Redis you run";
}

/** The data dir (and its redis/, sockets/ and logs/) can be made and written. */
export function dataDirUnwritable(dir: string): string | undefined {
  try {
    for (const sub of ["", "redis", "sockets", "logs"]) {
      mkdirSync(`${dir}/${sub}`, { recursive: true });
      accessSync(`${dir}/${sub}`, constants.W_OK);
    }
    return undefined;
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? (err as Error).message;
    return `the data dir ${dir} is not writable (${code}): set --data-dir or STARPOST_DATA_DIR to a folder you can write`;
  }
}

/** No starter runs in the data dir already: both would work on one Redis append-only file. */
export function dataDirInUse(dir: string): string | undefined {
  const owner = dirOwner(`${dir}/redis`);
  if (owner === undefined) return undefined;
  return `starpost is already running in ${dir} (pid ${owner}): stop it, or set --data-dir or STARPOST_DATA_DIR to another folder`;
}

/**
 * Every service's settings as the stack gives them (the compose file's environment with the
 * starter's overrides), parsed as the service will: a bad one (PLATFORM_TOKEN too short, a
 * timeout that is not a number) is named before anything starts.
 */
export function badSetting(services: ComposeService[], overrides: Record<string, string>): string | undefined {
  for (const svc of services) {
    const schema = ALL_CONFIG_SCHEMAS[svc.name as keyof typeof ALL_CONFIG_SCHEMAS];
    if (!schema) continue;
    const env = { ...svc.environment };
    for (const [k, v] of Object.entries(overrides)) if (k in env) env[k] = v;
    try {
      parseConfig(schema, env);
    } catch (err) {
      if (err instanceof ConfigError) return err.message;
      throw err;
    }
  }
  return undefined;
}

/** The gateway's port can be bound on 127.0.0.1 (where `starpost start` runs it). */
export function portInUse(port: number): Promise<string | undefined> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once("error", (err: NodeJS.ErrnoException) =>
      resolve(
        err.code === "EADDRINUSE"
          ? `port ${port} is in use (set PORT, or --port, to a free one; 0 picks any)`
          : `port ${port} cannot be used (${err.code ?? err.message}): set PORT, or --port, to another`,
      ),
    );
    server.listen(port, "127.0.0.1", () => server.close(() => resolve(undefined)));
  });
}

/** host:port of a Redis URL, for messages: the URL may hold a password. */
const where = (url: URL) => `${url.hostname}:${url.port || "6379"}`;

/**
 * Redis at REDIS_URL (or the first seed of REDIS_CLUSTER_NODES that answers) answers PING within
 * REDIS_CHECK_MS, after AUTH when the URL has a password. Spoken in RESP by hand: the starter's
 * bundle stays without a Redis client.
 */
export async function redisUnreachable(
  env: NodeJS.ProcessEnv,
  timeoutMs = REDIS_CHECK_MS,
): Promise<string | undefined> {
  if (env.REDIS_CLUSTER_NODES) {
    const seeds = env.REDIS_CLUSTER_NODES.split(",");
    let last: string | undefined;
    for (const seed of seeds) {
      last = await pingRedis(new URL(`redis://${seed}`), timeoutMs);
      if (last === undefined) return undefined;
    }
    return `no Redis Cluster node of REDIS_CLUSTER_NODES answers (${last}): start it or set REDIS_CLUSTER_NODES to nodes that answer`;
  }
  if (!env.REDIS_URL) return undefined;
  let url: URL;
  try {
    url = new URL(env.REDIS_URL);
  } catch {
    return "REDIS_URL is not a URL (redis://[user:password@]host:port[/db])";
  }
  const fault = await pingRedis(url, timeoutMs);
  return fault === undefined
    ? undefined
    : `Redis at ${where(url)} (REDIS_URL) ${fault}: start it, or set REDIS_URL to one that answers (unset: a private redis-server)`;
}

const command = (...args: string[]) =>
  `*${args.length}\r\n${args.map((a) => `$${Buffer.byteLength(a)}\r\n${a}\r\n`).join("")}`;

function pingRedis(url: URL, timeoutMs: number): Promise<string | undefined> {
  const port = Number(url.port || 6379);
  const host = url.hostname.replace(/^\[|\]$/g, "");
  const password = decodeURIComponent(url.password);
  const user = decodeURIComponent(url.username);
  return new Promise((resolve) => {
    let settled = false;
    const done = (fault: string | undefined) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      resolve(fault);
    };
    const socket: Socket =
      url.protocol === "rediss:" ? tlsConnect({ host, port, servername: host }) : tcpConnect({ host, port });
    const timer = setTimeout(() => done(`did not answer within ${timeoutMs / 1000} s`), timeoutMs);
    socket.once("error", (err: NodeJS.ErrnoException) => done(`is unreachable (${err.code ?? err.message})`));
    const replies: string[] = [];
    let buffer = "";
    const expected = password ? 2 : 1;
    socket.on("data", (chunk: Buffer) => {
      buffer += chunk.toString("latin1");
      let end;
      while ((end = buffer.indexOf("\r\n")) >= 0) {
        replies.push(buffer.slice(0, end));
        buffer = buffer.slice(end + 2);
      }
      const refused = replies.find((r) => r.startsWith("-"));
      if (refused) return done(`refused: ${refused.slice(1)}`);
      if (replies.length >= expected) done(replies.at(-1) === "+PONG" ? undefined : `answered ${replies.at(-1)}`);
    });
    const hello = () =>
      socket.write((password ? command("AUTH", ...(user ? [user] : []), password) : "") + command("PING"));
    socket.once(url.protocol === "rediss:" ? "secureConnect" : "connect", hello);
  });
}
