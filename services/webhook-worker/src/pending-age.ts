import type { Redis } from "ioredis";
import { keys } from "@starpost/shared";
import { appendedAt, fieldsOf, type DeliveryQueues } from "@starpost/update-log";

/**
 * Where a webhook bot with pending updates stands. "delivering": its drain runs in this process
 * now; "waiting": its drain job waits for a free slot (the oldest waiting job of each queue
 * shard); "retrying": its webhook is failing and the retry timer holds it (the figure that grows
 * with broken receivers, which is the bot owner's trouble; the other two grow when the workers
 * fall behind, which is the operator's).
 */
export type PendingState = "delivering" | "waiting" | "retrying";

export interface PendingAgeSources {
  redis: Redis;
  queue: DeliveryQueues;
  /** bots whose drain runs in this process now (bounded by its slots), by state. */
  here: ReadonlyMap<string, PendingState>;
  /** failing bots read per look (METRICS_PENDING_SAMPLE). */
  sample: number;
}

/**
 * The age (s) of the oldest pending update of the bots in each state, 0 when there is none. The
 * cost is bounded whatever the number of bots: the bots running here, the oldest waiting job per
 * queue shard and `sample` failing bots, one `XRANGE … COUNT 1` each. Polling bots are left out:
 * their updates wait until the bot asks, so the age is the bot's choice (its pending count is in
 * getWebhookInfo).
 */
export async function oldestPendingAges(src: PendingAgeSources): Promise<Record<PendingState, number>> {
  const bots = new Map(src.here);
  const [failing, ...waiting] = await Promise.all([
    src.sample > 0 ? src.redis.zrange(keys.webhookRetries(), 0, src.sample - 1) : Promise.resolve([]),
    // Oldest first: the job at the tail of each shard's wait list.
    ...src.queue.all.map((q) => q.getJobs(["wait"], 0, 0, true)),
  ]);
  for (const botId of failing) if (!bots.has(botId)) bots.set(botId, "retrying");
  for (const job of waiting.flat()) if (job?.data && !bots.has(job.data.botId)) bots.set(job.data.botId, "waiting");

  const ages: Record<PendingState, number> = { delivering: 0, waiting: 0, retrying: 0 };
  const now = Date.now();
  await Promise.all(
    [...bots].map(async ([botId, state]) => {
      const [head] = (await src.redis.xrange(keys.updateLog(botId), "-", "+", "COUNT", 1)) as [string, string[]][];
      const at = head && appendedAt(fieldsOf(head[1]));
      // A clock step or a replay re-appended with a fresh expiry can put `at` ahead of now.
      if (at !== undefined) ages[state] = Math.max(ages[state], Math.max(0, now - at) / 1000);
    }),
  );
  return ages;
}
