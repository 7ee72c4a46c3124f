import type { Redis } from "ioredis";
import { channels, keys } from "@starpost/shared";
import { logScripts, type DrainEpoch } from "./lua/index.ts";

/** A webhook delivery attempt as the activity log shows it. */
export interface Attempt {
  update_ids: number[];
  /** the HTTP status of the answer; absent when none came. */
  status?: number;
  /** why the attempt failed, as last_error_message says it. */
  error?: string;
  duration_ms: number;
}

/**
 * Confirms (deletes) updates and records why, in one step: `attempt` is the webhook delivery that
 * took them (a 2xx: an "attempt" and a "confirm" entry), or undefined when they were given up
 * (`reason`: a "drop" entry). A duplicate-delivery fault makes taken ones come again (replay.lua).
 * `ticket` is the drain's epoch: nothing is confirmed once its webhook changed, and the step
 * closes the epoch when it leaves the log empty (confirm-updates.lua).
 */
export async function confirmUpdates(
  redis: Redis,
  botId: string,
  ticket: string,
  updateIds: number[],
  how: { attempt: Attempt } | { reason: string },
): Promise<{ deleted: number; epoch: DrainEpoch }> {
  const attempt = "attempt" in how ? how.attempt : undefined;
  return logScripts.confirmUpdates(
    redis,
    {
      stream: keys.updateLog(botId),
      activity: keys.activity(botId),
      counter: keys.updateSeq(botId),
      bot: keys.bot(botId),
      faults: keys.faults(botId),
      webhook: keys.webhook(botId),
    },
    {
      attempt: attempt ? JSON.stringify(attempt) : "",
      kind: attempt ? "confirm" : "drop",
      data: JSON.stringify(
        attempt
          ? { by: "webhook", update_ids: updateIds }
          : { update_ids: updateIds, reason: (how as { reason: string }).reason },
      ),
      wakeChannel: channels.wake.name(botId),
      botId,
      ticket,
      ids: updateIds,
    },
  );
}

/** Unconfirmed updates, in-flight ones included (getWebhookInfo's pending_update_count). */
export async function pendingCount(redis: Redis, botId: string): Promise<number> {
  return redis.xlen(keys.updateLog(botId));
}
