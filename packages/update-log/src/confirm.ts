import type { Redis } from "ioredis";
import { keys } from "@starpost/shared";

/** Confirms (deletes) the given updates, e.g. after a webhook delivery succeeded or expired. */
export async function confirmUpdates(redis: Redis, botId: string, updateIds: number[]): Promise<number> {
  if (updateIds.length === 0) return 0;
  return redis.xdel(keys.updateLog(botId), ...updateIds.map((id) => `${id}-0`));
}

/** Unconfirmed updates, in-flight ones included (getWebhookInfo's pending_update_count). */
export async function pendingCount(redis: Redis, botId: string): Promise<number> {
  return redis.xlen(keys.updateLog(botId));
}
