import type { Redis } from "ioredis";
import type { Registry } from "./metrics.ts";

/**
 * Redis command latency, as the process waits for it: from the command handed to the client to
 * its answer (client-side queueing, the round trip and Redis's own time; a Lua step counts as one
 * command). ioredis has no per-command hook short of its diagnostics channel, which is global to
 * the process and builds a context object with the arguments of every command; so the client's
 * `sendCommand`, through which every command, pipelined or not, single Redis or cluster, passes,
 * is wrapped here: one performance.now() pair per command and no allocation, the label's
 * child bound once per client. A test (runtime/test/redis-client.test.ts) fails if ioredis stops
 * routing commands through it.
 */

/**
 * Commands that wait by design (BullMQ's idle worker blocks on its marker for 30 s): timing them
 * would bury the latency of the others.
 */
const BLOCKING = new Set([
  "blpop",
  "brpop",
  "brpoplpush",
  "blmove",
  "blmpop",
  "bzpopmin",
  "bzpopmax",
  "bzmpop",
  "xread",
  "xreadgroup",
]);

/** Redis answers in well under a millisecond when healthy; the command timeouts cut in after seconds. */
const REDIS_LATENCY_BUCKETS = [
  0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10,
];

const NAME = "starpost_redis_command_duration_seconds";

/** One client role's observations: cumulative only when rendered. */
class RoleTimings {
  /** per bucket (the last one +Inf), not cumulative. */
  readonly counts = new Float64Array(REDIS_LATENCY_BUCKETS.length + 1);
  sum = 0;
  count = 0;

  observe(seconds: number): void {
    let i = 0;
    while (i < REDIS_LATENCY_BUCKETS.length && seconds > REDIS_LATENCY_BUCKETS[i]!) i++;
    this.counts[i]!++;
    this.sum += seconds;
    this.count++;
  }
}

/**
 * The histogram, rendered by prom-client as any of its metrics (a metric object on the registry:
 * name, help, type and `get()`'s values, as prom-client's own Histogram gives them). Not a
 * prom-client Histogram: its observe() validates and hashes the labels on every call, which
 * cost more than the rest of a Redis command's client-side path; here an observation is a bucket
 * search and three additions.
 */
class RedisLatency {
  readonly name = NAME;
  readonly help =
    "Redis command latency as the process waits for it (queueing, round trip, Redis's time; a Lua step is one command), by client role; blocking reads left out";
  readonly type = "histogram";
  readonly aggregator = "sum";
  private readonly roles = new Map<string, RoleTimings>();

  /** The timings of one client role, made once. */
  role(role: string): RoleTimings {
    let t = this.roles.get(role);
    if (!t) this.roles.set(role, (t = new RoleTimings()));
    return t;
  }

  async get() {
    const values: { labels: Record<string, string | number>; value: number; metricName: string }[] = [];
    for (const [role, t] of this.roles) {
      let acc = 0;
      REDIS_LATENCY_BUCKETS.forEach((le, i) => {
        acc += t.counts[i]!;
        values.push({ labels: { le, role }, value: acc, metricName: `${NAME}_bucket` });
      });
      values.push({ labels: { le: "+Inf", role }, value: t.count, metricName: `${NAME}_bucket` });
      values.push({ labels: { role }, value: t.sum, metricName: `${NAME}_sum` });
      values.push({ labels: { role }, value: t.count, metricName: `${NAME}_count` });
    }
    return { name: NAME, help: this.help, type: this.type, aggregator: this.aggregator, values };
  }

  reset(): void {
    this.roles.clear();
  }
}

const histograms = new WeakMap<Registry, RedisLatency>();

/** The registry's `starpost_redis_command_duration_seconds{role}` histogram, made once per registry. */
function redisLatency(registry: Registry): RedisLatency {
  let h = histograms.get(registry);
  if (!h) {
    h = new RedisLatency();
    registry.prom.registerMetric(h as unknown as Parameters<typeof registry.prom.registerMetric>[0]);
    histograms.set(registry, h);
  }
  return h;
}

/**
 * ioredis's Command as the wrapper sees it: the parser calls `resolve`/`reject` as its methods
 * when the answer comes. The wrapper keeps its own values on the command (no closure per
 * command): the clock, the label's child and the original settlers, which its shared settlers
 * call after observing. A command sent again (offline queue, reconnect, cluster redirection)
 * keeps its first start: the wait counts.
 */
interface TimedCommand {
  name: string;
  resolve(value: unknown): void;
  reject(err: unknown): void;
  starpostStart?: number;
  starpostTimer?: RoleTimings;
  starpostResolve?: (value: unknown) => void;
  starpostReject?: (err: unknown) => void;
}

function timedResolve(this: TimedCommand, value: unknown): void {
  this.starpostTimer!.observe((performance.now() - this.starpostStart!) / 1000);
  this.starpostResolve!(value);
}

function timedReject(this: TimedCommand, err: unknown): void {
  this.starpostTimer!.observe((performance.now() - this.starpostStart!) / 1000);
  this.starpostReject!(err);
}

/** Times every command `client` sends into `registry`'s latency histogram under `role`. */
export function timeRedisCommands(client: Redis, registry: Registry, role: string): void {
  const child = redisLatency(registry).role(role);
  const send = client.sendCommand as (this: Redis, command: TimedCommand, stream?: unknown, node?: unknown) => unknown;
  // (stream, node): a cluster client's third argument; named, not spread, so a call allocates nothing.
  client.sendCommand = function (this: Redis, command: TimedCommand, stream?: unknown, node?: unknown) {
    if (command.starpostStart === undefined && !BLOCKING.has(command.name)) {
      command.starpostStart = performance.now();
      command.starpostTimer = child;
      command.starpostResolve = command.resolve;
      command.starpostReject = command.reject;
      command.resolve = timedResolve;
      command.reject = timedReject;
    }
    return send.call(this, command, stream, node);
  } as Redis["sendCommand"];
}
