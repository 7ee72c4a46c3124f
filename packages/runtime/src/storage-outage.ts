import type { Logger } from "./logger.ts";

/**
 * Redis not answering: frozen or overloaded (a command outlived REDIS_COMMAND_TIMEOUT_MS), down
 * (ioredis gave up on a command after its reconnect attempts, or the connection closed under it),
 * or still loading its data after a restart. A call that fails so is answered
 * `Errors.storageUnavailable`: 503 with retry_after. A step that timed out may still be applied
 * when Redis comes back (as with any lost answer): what was acknowledged is never lost, and a
 * retry of a push or a payment is safe with its idempotency_key.
 */

/** Seconds a caller is told to wait: a restarted Redis is usually back within a few seconds. */
export const STORAGE_UNAVAILABLE_RETRY_AFTER_S = 2;

const UNAVAILABLE = [
  /^Command timed out$/,
  /^Reached the max retries per request limit/,
  /^Connection is closed\.$/,
  /^Stream isn't writeable and enableOfflineQueue options is false$/,
  /^LOADING /,
  /^CLUSTERDOWN /,
  /^None of startup nodes is available$/,
  /^Failed to refresh slots cache/,
];

/** True for an error that says Redis did not answer (not one that Redis answered with). */
export function isStorageUnavailable(err: unknown): boolean {
  return err instanceof Error && UNAVAILABLE.some((re) => re.test(err.message));
}

/** One line per outage: a frozen Redis fails every call, and a line per call would bury the cause. */
const REPEAT_MS = 60_000;
let lastLogged = 0;
let suppressed = 0;

/**
 * Logs that a call was answered 503 because Redis did not answer: the first of an outage at
 * once, then one line a minute at most while it lasts, with the count of calls answered so since.
 */
export function reportStorageUnavailable(logger: Logger, err: Error): void {
  const now = Date.now();
  if (now - lastLogged < REPEAT_MS) {
    suppressed++;
    return;
  }
  const more = suppressed;
  lastLogged = now;
  suppressed = 0;
  logger.error(
    { err: { message: err.message }, ...(more > 0 ? { callsSinceLastLine: more } : {}) },
    "redis is not answering: calls are answered 503 with retry_after until it does (REDIS_COMMAND_TIMEOUT_MS)",
  );
}
