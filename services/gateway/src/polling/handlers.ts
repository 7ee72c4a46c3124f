import type { Redis } from "ioredis";
import { pollUpdates } from "@starpost/update-log";
import { type MethodContext } from "@starpost/http";
import type { GetUpdatesParams } from "../params/get-updates.ts";
import { updatesResult, type PollHub, type PollAnswer, type StepLog } from "./poll-hub.ts";

export interface PollingDeps {
  redis: Redis;
  hub: PollHub;
}

/**
 * What the gateway gives its own methods besides the call: an abort signal, made when first read,
 * and the call's request log entry for a step that answers it to write (`StepLog`).
 */
export interface HeldCall {
  signal: AbortSignal;
  stepLog(): StepLog | undefined;
}

/** getUpdates (long polling); `ctx.signal` ends a held poll when its caller goes away. */
export async function getUpdates(
  { redis, hub }: PollingDeps,
  ctx: MethodContext<GetUpdatesParams> & HeldCall,
): Promise<PollAnswer> {
  const { botId, params } = ctx;
  const { offset, limit, timeout, allowed_updates: allowed } = params;
  // As the official server, allowed_updates changes in the read's own step, only when the call is
  // not refused for a webhook and before anything waits: updates created from then on follow it.
  // Only a held poll reads ctx.signal: the signal (and its listener) is made on first read.
  // A read that answers the call writes its request log entry in the same step.
  const log = ctx.stepLog();
  if (timeout > 0)
    return hub.wait({ botId, offset, limit, timeoutMs: timeout * 1000, signal: ctx.signal, allowed, log });

  // Timeout 0 never waits, so it never disturbs a waiting poll of the same bot.
  const read = await pollUpdates(redis, botId, {
    offset,
    limit,
    pollId: "",
    mode: "none",
    ownerTtlMs: 0,
    allowed,
    logEntry: log?.entry,
  });
  if (read.outcome === "webhook") return hub.conflict(botId, { outcome: "webhook_active" });
  log?.written();
  hub.answeredAtOnce();
  return updatesResult(read.outcome === "updates" ? read.updates : []);
}
