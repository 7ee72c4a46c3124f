/**
 * The official server's retry schedule (WebhookActor::on_update_error): the first retry is
 * immediate, then 2, 4, 8 … s, capped at a random 60–120 s; a Retry-After (0–3600 s) in the failed
 * answer replaces the wait. An update whose lifetime ends before its next try is dropped.
 */

export interface RetryState {
  fails: number;
  /** the current doubling delay, seconds (starts at 1). */
  delay: number;
  /** Unix ms before which the update is not sent again. */
  wakeupAt: number;
}

export const FRESH: RetryState = { fails: 0, delay: 1, wakeupAt: 0 };
const MAX_RETRY_AFTER = 3600;
const MAX_RESEND = 60;

export type RetryDecision = { outcome: "retry"; state: RetryState } | { outcome: "drop" };

/** `scale` multiplies the doubling delays (WEBHOOK_BACKOFF_SCALE); Retry-After is taken as sent. */
export function nextRetry(
  prev: RetryState,
  retryAfter: number | undefined,
  expiresAt: number,
  now: number,
  scale = 1,
  random = Math.random,
): RetryDecision {
  const asked = Math.min(Math.max(retryAfter ?? 0, 0), MAX_RETRY_AFTER);
  let delay = prev.delay;
  let waitMs = asked * 1000;
  if (asked === 0 && prev.fails > 0) {
    const cap = MAX_RESEND + Math.floor(random() * (MAX_RESEND + 1)); // whole seconds, 60..120
    delay = Math.min(cap, delay * 2);
    waitMs = delay * 1000 * scale;
  }
  if (now + waitMs > expiresAt) return { outcome: "drop" };
  return { outcome: "retry", state: { fails: prev.fails + 1, delay, wakeupAt: now + waitMs } };
}

/** Retry-After as the official server reads it: whole seconds, anything else is 0. */
export function parseRetryAfter(value: string | string[] | undefined): number {
  const v = Array.isArray(value) ? value[0] : value;
  return v !== undefined && /^\s*\d+\s*$/.test(v) ? Number(v) : 0;
}
