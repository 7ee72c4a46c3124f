import { Queue } from "bullmq";
import type { Redis } from "ioredis";
import { DELIVERY_QUEUE, keys } from "./redis-keys.ts";

/**
 * Webhook delivery jobs: one BullMQ job drains one bot's log. The job id is derived from the
 * bot id, so adding a job for a bot that already has one waiting or running is a no-op: one drain
 * per bot at a time across every worker process.
 */

export interface DrainJob {
  botId: string;
}

export const drainJobId = (botId: string) => `bot-${botId}`;

export function createDeliveryQueue(connection: Redis): Queue<DrainJob> {
  return new Queue<DrainJob>(DELIVERY_QUEUE, { connection, prefix: keys.queuePrefix() });
}

/** Makes sure a drain job exists for the bot (after an append to a bot with a webhook). */
export async function scheduleDrain(queue: Queue<DrainJob>, botId: string, delayMs = 0): Promise<void> {
  await queue.add(
    "drain",
    { botId },
    { jobId: drainJobId(botId), delay: delayMs, removeOnComplete: true, removeOnFail: true },
  );
}
