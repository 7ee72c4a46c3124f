import type { Queue } from "bullmq";
import type { Redis } from "ioredis";
import { keys, pendingCount, scheduleDrain, type DrainJob, type Logger } from "@starpost/shared";

/**
 * Every few seconds, makes sure each bot with a webhook and pending updates has a drain job. It
 * covers what the per-append scheduling cannot: an append deduplicated while a drain was ending,
 * a worker that died between finishing a drain and scheduling the next, a Redis restart.
 * Adding a job for a bot that has one (waiting, running or delayed) is a no-op.
 */
export function startReconciler(opts: { redis: Redis; queue: Queue<DrainJob>; logger: Logger; intervalMs: number }) {
  const { redis, queue, logger, intervalMs } = opts;
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  let running: Promise<void> = Promise.resolve();

  async function pass() {
    let cursor = "0";
    do {
      const [next, ids] = await redis.sscan(keys.webhookBots(), cursor, "COUNT", 500);
      cursor = next;
      const pending = await Promise.all(ids.map((id) => pendingCount(redis, id)));
      await Promise.all(ids.filter((_, i) => pending[i]! > 0).map((id) => scheduleDrain(queue, id)));
    } while (cursor !== "0" && !stopped);
  }

  function schedule() {
    if (stopped) return;
    // A little jitter keeps several workers from scanning in lockstep.
    timer = setTimeout(() => {
      running = pass()
        .catch((err: Error) => logger.warn({ err: { message: err.message } }, "webhook reconciler pass failed"))
        .finally(schedule);
    }, intervalMs * (0.75 + Math.random() * 0.5));
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
