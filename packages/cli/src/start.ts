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
 * What would stop the stack is checked first and said in one line, exit code 1, with nothing
 * started (see preflight.ts): redis-server missing, the data dir not writable, a bad setting
 * (PLATFORM_TOKEN too short…), the port in use, Redis at REDIS_URL not answering. A service that
 * exits while the stack starts, or keeps crashing later, stops the whole stack with the reason
 * read from its last lines (its log), rather than leaving a stack without it.
 *
 * One webhook worker starts with the stack (STARPOST_WORKERS sets how many); when a worker logs
 * that every slot of a delivery queue shard is in use, a second one is started, as compose runs two.
 */
import { join } from "node:path";
import { readCompose, REPO_ROOT } from "../../testkit/src/compose-file.ts";
import { StartFailure, startProcessStack, type ProcessStack } from "../../testkit/src/compose-stack.ts";
import { stopOnSignal } from "../../testkit/src/child-processes.ts";
import { startRedis } from "../../testkit/src/redis-server.ts";
import { Supervisor } from "../../testkit/src/supervisor.ts";
import { WORKER_BUSY } from "../../../services/webhook-worker/src/busy.ts";
import { localStackEnv, platformToken } from "../../../scripts/local-stack-env.ts";
import {
  badSetting,
  dataDirInUse,
  dataDirUnwritable,
  portInUse,
  redisServerMissing,
  redisUnreachable,
} from "./preflight.ts";

export interface StartOptions {
  /** where Redis's data, the logs, the sockets and the platform token are kept. */
  dataDir: string;
  /** the gateway's port; undefined: a free one. */
  port: number | undefined;
}

const say = (line: string) => process.stderr.write(`starpost: ${line}\n`);

/** One line saying why the stack cannot run, and exit 1. */
function fail(line: string): never {
  say(line);
  process.exit(1);
}

/** A start failure in one line; a port in use is the gateway's PORT when it is the gateway's. */
function startFailureLine(err: StartFailure, port: number | undefined): string {
  if (port !== undefined && err.reason === `port ${port} is in use`) return `${err.reason} (set PORT)`;
  return err.message;
}

/** REDIS_MAXMEMORY as redis-server takes it (bytes, or with a unit: 512mb, 2gb); default 1gb. A bad one: one line, exit 1. */
function redisMaxmemory(): string {
  const value = process.env.REDIS_MAXMEMORY || "1gb";
  if (/^[1-9][0-9]*(b|kb|mb|gb)?$/i.test(value)) return value;
  say(`REDIS_MAXMEMORY must be a size such as 512mb or 2gb, not "${value}"`);
  process.exit(1);
}

export async function start({ dataDir: data, port }: StartOptions): Promise<void> {
  const missing = redisServerMissing(process.env) ?? dataDirUnwritable(data) ?? dataDirInUse(data);
  if (missing) fail(missing);
  // Gateway, workers and services share this host: they talk over Unix sockets in <data>/sockets
  // (INTERNAL_SOCKET_DIR); dataDirUnwritable made it, with redis/ and logs/.
  let running: ProcessStack | undefined;
  let stopping = false;
  const supervisor = new Supervisor({
    log: say,
    // Compose would keep the rest running; here a stack without one of its processes is no use
    // to a bot's tests: everything stops, with the reason.
    onGiveUp: (name) => {
      if (stopping) return;
      stopping = true;
      const reason = running?.reason(name);
      say(`${name} keeps crashing${reason ? `: ${reason}` : ""}; stopping starpost`);
      void (async () => {
        supervisor.stop();
        await running?.stop();
        await redis.stop();
        process.exit(1);
      })();
    },
  });

  async function redisServer(): Promise<{ url: string; process?: { pid?: number }; stop: () => Promise<void> }> {
    if (process.env.REDIS_URL) return { url: process.env.REDIS_URL, stop: async () => {} };
    // Past REDIS_MAXMEMORY Redis refuses writes (never evicts): calls answer 503 "storage is full".
    const server = await startRedis({
      appendonly: true,
      dir: join(data, "redis"),
      maxmemory: redisMaxmemory(),
      ownProcessGroup: true,
    });
    supervisor.watch("redis-server", server.process, () => server.respawn());
    return server;
  }

  const token = platformToken(data);
  // It is printed in a shell `export` line that tests and CI steps split on spaces.
  if (!/^[\x21-\x7e]+$/.test(token) || /["'`$\\]/.test(token)) {
    fail("PLATFORM_TOKEN must be printable ASCII without spaces, quotes, backslashes or $");
  }
  const env = localStackEnv(token);
  const checked =
    badSetting(readCompose({ ...process.env, ...env }), env) ??
    (port === undefined ? undefined : await portInUse(port)) ??
    (await redisUnreachable(process.env));
  if (checked) fail(checked);
  const redis = await redisServer();
  /** Workers at the start; one more starts on demand while fewer than ON_DEMAND_WORKERS run. */
  const workers = Math.max(1, Number(process.env.STARPOST_WORKERS) || 1);
  const ON_DEMAND_WORKERS = 2;
  let adding = false;
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
    // Ctrl-C reaches the starter only, which stops the processes in order.
    ownProcessGroups: true,
    workers,
    onLine,
    extraEnv: { INTERNAL_SOCKET_DIR: join(data, "sockets") },
    env,
  }).catch(async (err: Error) => {
    supervisor.stop();
    await redis.stop();
    if (err instanceof StartFailure) fail(startFailureLine(err, port));
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
