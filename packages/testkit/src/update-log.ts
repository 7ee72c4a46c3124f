import type { Redis } from "ioredis";
import { keys } from "@starpost/shared";
import {
  appendUpdates,
  ENTRY_FIELDS,
  type AppendOutcome,
  type HistoryEntry,
  type LogEntry,
  type UpdateSink,
} from "@starpost/update-log";

/** The update log as tests fill it: one update through the real append, or raw entries. */

/**
 * Appends one update to an existing bot's log, recording its message in a history when given
 * (tests back-date updates with `now`).
 */
export async function appendUpdate(
  sink: UpdateSink,
  botId: string,
  kind: string,
  payload: unknown,
  now = Date.now(),
  history?: HistoryEntry,
): Promise<AppendOutcome> {
  const [outcome] = (await appendUpdates(sink, botId, [{ kind, payload, history }], undefined, now)) ?? [];
  return outcome ?? { outcome: "dropped", reason: "unknown_kind" };
}

/** An entry's XADD field/value list (tests fill a log directly with it). */
export function encodeEntry(e: Omit<LogEntry, "update_id">): (string | number)[] {
  return [
    ENTRY_FIELDS.kind,
    e.kind,
    ENTRY_FIELDS.queue,
    e.queue,
    ENTRY_FIELDS.expiresAt,
    e.expiresAt,
    ENTRY_FIELDS.json,
    e.json,
  ];
}

/** The ticket of the bot's open drain epoch (its drain job's name), as drain-epoch.lua spells it; undefined when none is open. */
export async function openTicket(redis: Redis, botId: string): Promise<string | undefined> {
  const [generation, epoch] = await redis.hmget(keys.webhook(botId), "generation", "drain");
  return generation !== null && Number(epoch) > 0 ? `${generation}_${epoch}` : undefined;
}
