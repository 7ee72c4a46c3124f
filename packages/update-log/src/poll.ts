import type { Redis } from "ioredis";
import { channels, keys } from "@starpost/shared";
import { REQUEST_LOG_SIZE } from "@starpost/runtime";
import { logScripts, type AllowedMode, type PollOutcome, type PollWaitMode } from "./lua/index.ts";

export interface PollRead {
  offset: number;
  limit: number;
  /** the poll's id, unique across replicas ("" for a call that never waits). */
  pollId: string;
  /**
   * "claim": wait if nothing is ready, terminating the previous waiter; "rearm": keep waiting if
   * still the owner (with updates, the claim is kept until the next poll's claim or its TTL).
   */
  mode: PollWaitMode;
  /** how long the claim lives in Redis, ms (the poll's remaining wait plus a margin). */
  ownerTtlMs: number;
  /** getUpdates' allowed_updates: kinds, `null` for the default, `undefined` to leave the setting. */
  allowed?: string[] | null;
  /** the call's request log entry, written by the step when it answers the call (updates or, not waiting, none). */
  logEntry?: string;
  now?: number;
}

/**
 * getUpdates' read in one round trip: refuses while a webhook is set, confirms below `offset`
 * (negative: keeps the newest |offset|), deletes expired updates, returns up to `limit`; stores
 * `allowed` unless refused for a webhook (an unchanged setting is not written again); with
 * nothing ready it claims (or re-arms) the bot's waiting-poll slot. A call it answers has its
 * request log entry (`logEntry`) written in the same step.
 */
export async function pollUpdates(redis: Redis, botId: string, read: PollRead): Promise<PollOutcome> {
  return logScripts.pollUpdates(
    redis,
    {
      stream: keys.updateLog(botId),
      counter: keys.updateSeq(botId),
      webhook: keys.webhook(botId),
      owner: keys.pollOwner(botId),
      allowed: keys.allowedUpdates(botId),
      bot: keys.bot(botId),
      requests: keys.requestLog(botId),
      activity: keys.activity(botId),
      faults: keys.faults(botId),
    },
    {
      offset: read.offset,
      limit: read.limit,
      now: read.now ?? Date.now(),
      pollId: read.pollId,
      mode: read.mode,
      ownerTtl: read.ownerTtlMs,
      wakeChannel: channels.wake.name(botId),
      botId,
      allowedMode: allowedMode(read.allowed),
      logKept: REQUEST_LOG_SIZE,
      logEntry: read.logEntry ?? "",
      kinds: read.allowed ?? [],
    },
  );
}

/** How a step treats allowed_updates given as kinds, `null` (the default) or `undefined` (leave it). */
export const allowedMode = (allowed: string[] | null | undefined): AllowedMode =>
  allowed === undefined ? "keep" : allowed === null ? "default" : "set";

/** Ends a waiting poll's claim on its bot unless another poll took it over. */
export async function releasePoll(redis: Redis, botId: string, pollId: string): Promise<void> {
  await logScripts.releasePoll(redis, { owner: keys.pollOwner(botId) }, { pollId });
}
