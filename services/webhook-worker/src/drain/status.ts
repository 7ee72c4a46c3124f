import type { Redis } from "ioredis";
import { keys } from "@starpost/shared";
import { STATUS } from "@starpost/runtime";
import { workerScripts } from "../lua/index.ts";
import type { RetryState } from "../delivery/backoff.ts";
import type { Attempt } from "@starpost/update-log";

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

/** The status of a `keys.webhookStatus` hash as read. */
export function statusFromHash(h: Record<string, string>): DrainStatus {
  const retries = new Map<number, RetryState>();
  for (const [field, value] of Object.entries(h)) {
    if (!field.startsWith(STATUS.retryPrefix)) continue;
    const [fails, delay, wakeupAt] = value.split(":").map(Number);
    retries.set(Number(field.slice(STATUS.retryPrefix.length)), { fails: fails!, delay: delay!, wakeupAt: wakeupAt! });
  }
  return { okSeen: h[STATUS.lastOk] === "1", retries };
}

const retryField = (updateId: number) => `${STATUS.retryPrefix}${updateId}`;

export interface Failure {
  /** the generation of the webhook the update was sent to. */
  generation: string;
  updateId: number;
  message: string;
  /** the update's next try; undefined when it was dropped. */
  retry: RetryState | undefined;
  now: number;
  /** the attempt, for the bot's activity log. */
  attempt: Attempt;
}

/**
 * A failed attempt: an "attempt" entry of the activity log, and the last error and the update's
 * next try unless the webhook changed since.
 */
export async function recordFailure(redis: Redis, botId: string, f: Failure): Promise<void> {
  await workerScripts.recordWebhookFailure(
    redis,
    { webhook: keys.webhook(botId), status: keys.webhookStatus(botId), activity: keys.activity(botId) },
    {
      attempt: JSON.stringify(f.attempt),
      generation: f.generation,
      dateField: STATUS.lastErrorDate,
      date: Math.floor(f.now / 1000),
      messageField: STATUS.lastErrorMessage,
      message: f.message,
      okField: STATUS.lastOk,
      retryField: retryField(f.updateId),
      retry: f.retry ? `${f.retry.fails}:${f.retry.delay}:${f.retry.wakeupAt}` : "",
    },
  );
}

/**
 * A delivered update whose answer was ignored (see record-reply-ignored.lua): the last error says
 * why, as after a failure, and stays until setWebhook or deleteWebhook like any last error.
 */
export async function recordReplyIgnored(
  redis: Redis,
  botId: string,
  generation: string,
  message: string,
  now: number,
): Promise<void> {
  await workerScripts.recordReplyIgnored(
    redis,
    { webhook: keys.webhook(botId), status: keys.webhookStatus(botId) },
    {
      generation,
      dateField: STATUS.lastErrorDate,
      date: Math.floor(now / 1000),
      messageField: STATUS.lastErrorMessage,
      message,
    },
  );
}

/** A success after failures: more connections may be used again; the update's retry state goes. */
export async function recordSuccess(redis: Redis, botId: string, updateId: number | undefined, firstOk: boolean) {
  const key = keys.webhookStatus(botId);
  const m = redis.multi();
  if (firstOk) m.hset(key, STATUS.lastOk, "1");
  if (updateId !== undefined) m.hdel(key, retryField(updateId));
  await m.exec();
}
