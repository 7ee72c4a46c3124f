import { Queue, type JobType } from "bullmq";
import type { Redis } from "ioredis";
import { DELIVERY_SHARDS, keys, shardOf } from "./redis-keys.ts";

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

/** Makes sure a drain job exists for the bot (after an append to a bot with a webhook). */
export async function scheduleDrain(queues: DeliveryQueues, botId: string, delayMs = 0): Promise<void> {
  await queues
    .forBot(botId)
    .add("drain", { botId }, { jobId: drainJobId(botId), delay: delayMs, removeOnComplete: true, removeOnFail: true });
}
