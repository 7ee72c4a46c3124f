/**
 * `npm start`: the whole stack on this machine. A private redis-server (data and append-only file
 * under .data/redis) unless REDIS_URL is set, then the services of docker-compose.yml as local
 * processes (logs under .data/logs). Like compose's `restart: unless-stopped`, a process that dies
 * (the private redis-server included) is restarted with backoff, and one that keeps crashing is
 * reported and given up. Ctrl-C stops everything. STARPOST_DATA_DIR moves .data elsewhere.
 *
 * `npm start` builds first (`pnpm run build`) and runs this file's bundle, dist/start.mjs, with
 * plain node; the services run from their bundles (dist/<service>.mjs) as in the image. It imports
 * the few testkit modules it needs by path, not the testkit's index, so the starter stays small.
 * STARPOST_FROM_SOURCE=true runs the services from their TypeScript sources under tsx instead
 * (`node --import tsx scripts/start.ts`, for working on starpost without rebuilding).
 *
 * One webhook worker starts with the stack (STARPOST_WORKERS sets how many); when a worker logs
 * that every slot of a delivery queue shard is in use, a second one is started, as compose runs two.
 */
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { REPO_ROOT } from "../packages/testkit/src/compose-file.ts";
import { startProcessStack, type ProcessStack } from "../packages/testkit/src/compose-stack.ts";
import { stopOnSignal } from "../packages/testkit/src/child-processes.ts";
import { startRedis } from "../packages/testkit/src/redis-server.ts";
import { Supervisor } from "../packages/testkit/src/supervisor.ts";
import { WORKER_BUSY } from "../services/webhook-worker/src/busy.ts";
import { localStackEnv, platformToken } from "./local-stack-env.ts";

const data = process.env.STARPOST_DATA_DIR ?? join(REPO_ROOT, ".data");
mkdirSync(join(data, "redis"), { recursive: true });
// Gateway, workers and services share this host: they talk over Unix sockets here (INTERNAL_SOCKET_DIR).
mkdirSync(join(data, "sockets"), { recursive: true });
const say = (line: string) => process.stderr.write(`starpost: ${line}\n`);
const supervisor = new Supervisor({ log: say });

async function redisServer(): Promise<{ url: string; process?: { pid?: number }; stop: () => Promise<void> }> {
  if (process.env.REDIS_URL) return { url: process.env.REDIS_URL, stop: async () => {} };
  const server = await startRedis({ appendonly: true, dir: join(data, "redis") });
  supervisor.watch("redis-server", server.process, () => server.respawn());
  return server;
}

const token = platformToken(data);
const port = Number(process.env.PORT ?? 8081);
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
  gatewayPort: port,
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
