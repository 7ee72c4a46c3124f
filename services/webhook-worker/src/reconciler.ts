import type { Redis } from "ioredis";
import { keys, WEBHOOK_BOT_SHARDS } from "@starpost/shared";
import { type Logger } from "@starpost/runtime";
import { requestDrain, type DeliveryQueues } from "@starpost/update-log";

/**
 * The repair of drain jobs a dead process left unscheduled: a producer killed between its Lua
 * step and its drain request, a worker killed between a drain's end and its follow-up look. A
 * living process retries its own refused requests (DeliveryQueues.request); a dead one is
 * restarted, and every process that schedules drains raises `keys.sweepEpoch()` when it starts.
 * This reconciler reads that counter every `intervalMs` (one GET: idle traffic does not grow with
 * the bots) and sweeps every bot with a webhook once when it changed, once when this worker
 * starts, and once after its Redis connection came back or a cluster node came or went (a job
 * written just before a failover may be gone): requestDrain's "recheck" for each (a bot left in
 * the index by a crash costs one look).
 * Adding a job for a bot that has one (waiting, running or delayed) is a no-op.
 */
export function startReconciler(opts: { redis: Redis; queue: DeliveryQueues; logger: Logger; intervalMs: number }) {
  const { redis, queue, logger, intervalMs } = opts;
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  let running: Promise<void> = Promise.resolve();
  /** the epoch of the last sweep; undefined until this worker has swept once. */
  let swept: string | null | undefined;

  async function passShard(shard: number) {
    let cursor = "0";
    do {
      const [next, ids] = await redis.sscan(keys.webhookBots(shard), cursor, "COUNT", 500);
      cursor = next;
      await Promise.all(ids.map((id) => requestDrain(queue, id, { cause: "recheck", redis })));
    } while (cursor !== "0" && !stopped);
  }

  async function look() {
    const epoch = await redis.get(keys.sweepEpoch());
    if (swept !== undefined && epoch === swept) return;
    for (let shard = 0; shard < WEBHOOK_BOT_SHARDS && !stopped; shard++) await passShard(shard);
    swept = epoch;
    logger.info({ epoch }, "webhook reconciler swept every webhook bot");
  }

  function schedule(ms: number) {
    if (stopped) return;
    timer = setTimeout(() => {
      running = look()
        .catch((err: Error) => logger.warn({ err: { message: err.message } }, "webhook reconciler pass failed"))
        .finally(() => schedule(intervalMs * (0.75 + Math.random() * 0.5)));
    }, ms);
    timer.unref();
  }
  // Redis came back (or the cluster changed): sweep at the next look.
  let connected = false;
  const onReady = () => {
    if (connected) swept = undefined;
    connected = true;
  };
  const onNode = () => (swept = undefined);
  redis.on("ready", onReady);
  redis.on("+node", onNode);
  redis.on("-node", onNode);
  if (redis.status === "ready") connected = true;
  schedule(0);

  return {
    async stop() {
      redis.off("ready", onReady);
      redis.off("+node", onNode);
      redis.off("-node", onNode);
      stopped = true;
      clearTimeout(timer);
      await running;
    },
  };
}
