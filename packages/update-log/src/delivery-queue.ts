import { Queue, type JobType } from "bullmq";
import type { Redis } from "ioredis";
import { DELIVERY_SHARDS, keys, shardOf } from "@starpost/shared";

/**
 * Webhook delivery jobs: one BullMQ job drains one bot's log. The job id is derived from the
 * bot id, so adding a job for a bot that already has one waiting or running is a no-op: one drain
 * per bot at a time across every worker process.
 *
 * The jobs are spread over DELIVERY_SHARDS queues, each under its own hash tag, so on a Redis
 * Cluster no one master carries every job; a bot always goes to the same queue.
 */

export interface DrainJob {
  botId: string;
}

export const drainJobId = (botId: string) => `bot-${botId}`;

export class DeliveryQueues {
  /** queue `i` holds the bots whose shard is `i`. */
  readonly all: Queue<DrainJob>[];

  constructor(connection: Redis) {
    this.all = Array.from(
      { length: DELIVERY_SHARDS },
      (_, i) => new Queue<DrainJob>(keys.deliveryQueue(i), { connection, prefix: keys.queuePrefix() }),
    );
  }

  forBot(botId: string): Queue<DrainJob> {
    return this.all[shardOf(botId, DELIVERY_SHARDS)]!;
  }

  /** Jobs by state, summed over the shards. */
  async counts(...states: JobType[]): Promise<Record<string, number>> {
    const sum: Record<string, number> = {};
    for (const counts of await Promise.all(this.all.map((q) => q.getJobCounts(...states)))) {
      for (const [state, n] of Object.entries(counts)) sum[state] = (sum[state] ?? 0) + n;
    }
    return sum;
  }

  async close(): Promise<void> {
    await Promise.all(this.all.map((q) => q.close()));
  }
}

export function createDeliveryQueue(connection: Redis): DeliveryQueues {
  return new DeliveryQueues(connection);
}

/**
 * Why a bot's log may need a drain. Every caller names its cause and `requestDrain` decides: the
 * one place that decides whether and when a bot's webhook delivery runs.
 */
export type DrainCause =
  /** a Lua step appended through update-log.lua; `pending` is its pending signal (log_close). */
  | { cause: "appended"; pending: boolean }
  /** setWebhook stored a webhook; `pending` updates wait in the log. */
  | { cause: "webhook_set"; pending: number }
  /**
   * Redis is asked (a webhook set and updates pending?): after a drain ended (`retryAt`: it ended
   * waiting for a retry due then) and on the workers' reconciler passes.
   */
  | { cause: "recheck"; redis: Redis; retryAt?: number };

/**
 * Makes sure the bot's drain job exists when `why` calls for one. A job that exists (waiting,
 * running or delayed) is kept: the job id is per bot. For setWebhook, a drain delayed for the old
 * webhook's retry is promoted (a running drain notices the new settings by itself). Resolves to
 * whether a drain was asked for.
 */
export async function requestDrain(queues: DeliveryQueues, botId: string, why: DrainCause): Promise<boolean> {
  let delayMs = 0;
  switch (why.cause) {
    case "appended":
      if (!why.pending) return false;
      break;
    case "webhook_set": {
      if (why.pending === 0) return false;
      const job = await queues.forBot(botId).getJob(drainJobId(botId));
      if (job && (await job.isDelayed())) {
        await job.promote().catch(() => undefined); // it may have started meanwhile
        return true;
      }
      break;
    }
    case "recheck": {
      // One round trip; no MULTI needed: a change right after is covered by the drain or the next pass.
      const [[, webhook], [, pending]] = (await why.redis
        .pipeline()
        .exists(keys.webhook(botId))
        .xlen(keys.updateLog(botId))
        .exec()) as [[null, number], [null, number]];
      if (webhook === 0 || pending === 0) return false;
      if (why.retryAt !== undefined) delayMs = Math.max(0, why.retryAt - Date.now());
      break;
    }
  }
  await queues
    .forBot(botId)
    .add("drain", { botId }, { jobId: drainJobId(botId), delay: delayMs, removeOnComplete: true, removeOnFail: true });
  return true;
}
