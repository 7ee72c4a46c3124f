import type { Redis } from "ioredis";
import { keys, STATUS } from "@starpost/shared";
import type { RetryState } from "../delivery/backoff.ts";

/**
 * A bot's delivery status in `keys.webhookStatus`: the last error (shown by getWebhookInfo,
 * cleared only by set/delete), whether the last delivery succeeded, and the retry state of every
 * update waiting out a delay, so a drain that ends and one that resumes later (on any worker)
 * keep the same schedule.
 */

export interface DrainStatus {
  okSeen: boolean;
  retries: Map<number, RetryState>;
}

export async function loadStatus(redis: Redis, botId: string): Promise<DrainStatus> {
  const h = await redis.hgetall(keys.webhookStatus(botId));
  const retries = new Map<number, RetryState>();
  for (const [field, value] of Object.entries(h)) {
    if (!field.startsWith(STATUS.retryPrefix)) continue;
    const [fails, delay, wakeupAt] = value.split(":").map(Number);
    retries.set(Number(field.slice(STATUS.retryPrefix.length)), { fails: fails!, delay: delay!, wakeupAt: wakeupAt! });
  }
  return { okSeen: h[STATUS.lastOk] === "1", retries };
}

const retryField = (updateId: number) => `${STATUS.retryPrefix}${updateId}`;

/** A failed attempt: the last error, and the update's next try (or none when it was dropped). */
export async function recordFailure(redis: Redis, botId: string, updateId: number, message: string, retry: RetryState | undefined, now: number) {
  const key = keys.webhookStatus(botId);
  const fields: Record<string, string> = {
    [STATUS.lastErrorDate]: String(Math.floor(now / 1000)),
    [STATUS.lastErrorMessage]: message,
    [STATUS.lastOk]: "0",
  };
  if (retry) fields[retryField(updateId)] = `${retry.fails}:${retry.delay}:${retry.wakeupAt}`;
  const m = redis.multi().hset(key, fields);
  if (!retry) m.hdel(key, retryField(updateId));
  await m.exec();
}

/** A success after failures: more connections may be used again; the update's retry state goes. */
export async function recordSuccess(redis: Redis, botId: string, updateId: number | undefined, firstOk: boolean) {
  const key = keys.webhookStatus(botId);
  const m = redis.multi();
  if (firstOk) m.hset(key, STATUS.lastOk, "1");
  if (updateId !== undefined) m.hdel(key, retryField(updateId));
  await m.exec();
}
