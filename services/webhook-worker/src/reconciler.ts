import type { Redis } from "ioredis";
import { keys, WEBHOOK_BOT_SHARDS } from "@starpost/shared";
import { type Logger } from "@starpost/runtime";
import { requestDrain, type DeliveryQueues } from "@starpost/update-log";

/**
 * Every few seconds, makes sure each bot with a webhook and pending updates has a drain job
 * (requestDrain's "recheck": a bot left in the index by a crash costs one look, no drain). It
 * covers what the per-append scheduling cannot: an append deduplicated while a drain was ending,
 * a worker that died between finishing a drain and scheduling the next, a Redis restart.
 * Adding a job for a bot that has one (waiting, running or delayed) is a no-op. The bots with a
 * webhook are indexed over WEBHOOK_BOT_SHARDS sets (spread over a cluster's masters); a pass
 * scans them all.
 */
export function startReconciler(opts: { redis: Redis; queue: DeliveryQueues; logger: Logger; intervalMs: number }) {
  const { redis, queue, logger, intervalMs } = opts;
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  let running: Promise<void> = Promise.resolve();

  async function passShard(shard: number) {
    let cursor = "0";
    do {
      const [next, ids] = await redis.sscan(keys.webhookBots(shard), cursor, "COUNT", 500);
      cursor = next;
      await Promise.all(ids.map((id) => requestDrain(queue, id, { cause: "recheck", redis })));
    } while (cursor !== "0" && !stopped);
  }

  async function pass() {
    for (let shard = 0; shard < WEBHOOK_BOT_SHARDS && !stopped; shard++) await passShard(shard);
  }

  function schedule() {
    if (stopped) return;
    // A little jitter keeps several workers from scanning in lockstep.
    timer = setTimeout(
      () => {
        running = pass()
          .catch((err: Error) => logger.warn({ err: { message: err.message } }, "webhook reconciler pass failed"))
          .finally(schedule);
      },
      intervalMs * (0.75 + Math.random() * 0.5),
    );
    timer.unref();
  }
  schedule();

  return {
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await running;
    },
  };
}
