/**
 * `starpost start`: the whole stack on this machine. A private redis-server (data and append-only
 * file under <data dir>/redis) unless REDIS_URL is set, then the services of docker-compose.yml as
 * local processes (logs under <data dir>/logs). Like compose's `restart: unless-stopped`, a process
 * that dies (the private redis-server included) is restarted with backoff, and one that keeps
 * crashing is reported and given up. Ctrl-C stops everything.
 *
 * The services run from their bundles (dist/<service>.mjs, beside this file's bundle) with plain
 * node, as in the image; STARPOST_FROM_SOURCE=true runs them from their TypeScript sources under
 * tsx instead (`node --import tsx packages/cli/src/main.ts start`, for working on starpost without
 * rebuilding). It imports the few testkit modules it needs by path, not the testkit's index, so
 * the bundle stays small.
 *
 * One webhook worker starts with the stack (STARPOST_WORKERS sets how many); when a worker logs
 * that every slot of a delivery queue shard is in use, a second one is started, as compose runs two.
 */
import { spawnSync } from "node:child_process";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { REPO_ROOT } from "../../testkit/src/compose-file.ts";
import { startProcessStack, type ProcessStack } from "../../testkit/src/compose-stack.ts";
import { stopOnSignal } from "../../testkit/src/child-processes.ts";
import { startRedis } from "../../testkit/src/redis-server.ts";
import { Supervisor } from "../../testkit/src/supervisor.ts";
import { WORKER_BUSY } from "../../../services/webhook-worker/src/busy.ts";
import { localStackEnv, platformToken } from "../../../scripts/local-stack-env.ts";

export interface StartOptions {
  /** where Redis's data, the logs, the sockets and the platform token are kept. */
  dataDir: string;
  /** the gateway's port; undefined: a free one. */
  port: number | undefined;
}

const say = (line: string) => process.stderr.write(`starpost: ${line}\n`);

/** Without REDIS_URL a redis-server must be on the PATH: one line saying how to get one, and exit 1. */
function requireRedisServer() {
  if (process.env.REDIS_URL) return;
  const probe = spawnSync("redis-server", ["--version"], { stdio: "ignore" });
  if (probe.error === undefined && probe.status === 0) return;
  say(
    "redis-server is not on the PATH: install it (Debian/Ubuntu: sudo apt-get install redis-server; macOS: brew install redis) or set REDIS_URL to a Redis you run",
  );
  process.exit(1);
}

export async function start({ dataDir: data, port }: StartOptions): Promise<void> {
  requireRedisServer();
  mkdirSync(join(data, "redis"), { recursive: true });
  // Gateway, workers and services share this host: they talk over Unix sockets here (INTERNAL_SOCKET_DIR).
  mkdirSync(join(data, "sockets"), { recursive: true });
  const supervisor = new Supervisor({ log: say });

  async function redisServer(): Promise<{ url: string; process?: { pid?: number }; stop: () => Promise<void> }> {
    if (process.env.REDIS_URL) return { url: process.env.REDIS_URL, stop: async () => {} };
    const server = await startRedis({ appendonly: true, dir: join(data, "redis") });
    supervisor.watch("redis-server", server.process, () => server.respawn());
    return server;
  }

  const token = platformToken(data);
  // It is printed in a shell `export` line that tests and CI steps split on spaces.
  if (!/^[\x21-\x7e]+$/.test(token) || /["'`$\\]/.test(token)) {
    say("PLATFORM_TOKEN must be printable ASCII without spaces, quotes, backslashes or $");
    process.exit(1);
  }
  const redis = await redisServer();
  /** Workers at the start; one more starts on demand while fewer than ON_DEMAND_WORKERS run. */
  const workers = Math.max(1, Number(process.env.STARPOST_WORKERS) || 1);
  const ON_DEMAND_WORKERS = 2;
  let running: ProcessStack | undefined;
  let adding = false;
  let stopping = false;
  const onLine = (name: string, line: string) => {
    if (!running || adding || stopping || !name.startsWith("webhook-worker") || !line.includes(WORKER_BUSY)) return;
    if (running.processes.filter((p) => p.service === "webhook-worker").length >= ON_DEMAND_WORKERS) return;
    adding = true;
    running.addReplica("webhook-worker").then(
      (p) => say(`${p.name} started (pid ${p.child.pid}): ${name} has every slot of a delivery queue shard in use`),
      (err: Error) => {
        adding = false; // tried again on the next busy line
        say(`a second webhook worker did not start: ${err.message}`);
      },
    );
  };
  const stack = await startProcessStack({
    redisUrl: redis.url,
    ...(process.env.STARPOST_FROM_SOURCE === "true" ? {} : { dist: join(REPO_ROOT, "dist") }),
    ...(port === undefined ? {} : { gatewayPort: port }),
    logDir: join(data, "logs"),
    supervisor,
    workers,
    onLine,
    extraEnv: { INTERNAL_SOCKET_DIR: join(data, "sockets") },
    env: localStackEnv(token),
  }).catch(async (err) => {
    supervisor.stop();
    await redis.stop();
    throw err;
  });
  running = stack;

  const root = stack.gatewayUrl;
  const example = "starpost_${RANDOM}";
  process.stdout.write(`
starpost is running (${[...(redis.process ? [`redis-server pid ${redis.process.pid}`] : []), ...stack.processes.map((p) => `${p.name} pid ${p.child.pid}`)].join(", ")})

  Bot API root     ${root}          (bots call ${root}/bot<token>/<method>)
  Platform API     ${root}/platform/v1   Authorization: Bearer ${token}
  Console          ${root}/console   (sign in with the platform token)
  Redis            ${redis.url}${process.env.REDIS_URL ? "" : `   (data in ${join(data, "redis")})`}
  Logs             ${join(data, "logs")}

For a bot's tests (@starpost/client reads these):
export STARPOST_URL=${root} STARPOST_PLATFORM_TOKEN=${token}

Create a bot and call getMe:

  TOKEN=$(curl -s -X POST ${root}/platform/v1/bots -H 'Authorization: Bearer ${token}' -H 'Content-Type: application/json' -d "{\\"username\\":\\"${example}_bot\\"}" | sed -E 's/.*"token":"([^"]+)".*/\\1/') && curl -s ${root}/bot$TOKEN/getMe

Press Ctrl-C to stop.
`);

  stopOnSignal(async () => {
    stopping = true;
    supervisor.stop();
    await stack.stop();
    await redis.stop();
  });
}
