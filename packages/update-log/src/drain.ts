import type { Redis } from "ioredis";
import { keys } from "@starpost/shared";
import { updateKind } from "./update-kinds.ts";

/** One entry of the log as the webhook worker sees it. */
export interface LogEntry {
  update_id: number;
  kind: string;
  queue: string;
  expiresAt: number;
  /** the Update JSON, exactly as delivered. */
  json: string;
}

/**
 * The stream fields of an entry, the one place TypeScript spells them; Lua's are `ENTRY` in
 * lua/log-entry.lua (a test reads back what the Lua wrote with these names). `replay` ("1") marks
 * a replay (replay.lua), which getUpdates deletes once it answered with it.
 */
export const ENTRY_FIELDS = { kind: "k", queue: "q", expiresAt: "x", json: "u", replay: "r" } as const;

/** A flat field/value list (a stream entry, HGETALL inside a script) as an object. */
export function fieldsOf(flat: string[]): Record<string, string> {
  const fields: Record<string, string> = {};
  for (let i = 0; i < flat.length; i += 2) fields[flat[i]!] = flat[i + 1]!;
  return fields;
}

/** An XRANGE row (`<update_id>-0`, flat field/value list) as a LogEntry. */
export function decodeEntry(id: string, flat: string[]): LogEntry {
  const fields = fieldsOf(flat);
  return {
    update_id: Number(id.slice(0, id.indexOf("-"))),
    kind: fields[ENTRY_FIELDS.kind]!,
    queue: fields[ENTRY_FIELDS.queue]!,
    expiresAt: Number(fields[ENTRY_FIELDS.expiresAt]),
    json: fields[ENTRY_FIELDS.json]!,
  };
}

/**
 * When an entry was appended (Unix ms): its expiry less its kind's lifetime, the log keeping no
 * second timestamp. A replay of an update (replay.lua) keeps the original's expiry, so it counts
 * from the original's append; undefined for an entry of a kind this build does not know.
 */
export function appendedAt(fields: Record<string, string>): number | undefined {
  const kind = updateKind(fields[ENTRY_FIELDS.kind] ?? "");
  const expiry = Number(fields[ENTRY_FIELDS.expiresAt]);
  if (!kind || !Number.isFinite(expiry)) return undefined;
  return expiry - kind.lifetime * 1000;
}

/** Reads up to `count` entries after `afterId` (exclusive), oldest first, without confirming. */
export async function readEntries(redis: Redis, botId: string, afterId: number, count: number): Promise<LogEntry[]> {
  const start = afterId > 0 ? `(${afterId}-0` : "-";
  const rows = (await redis.xrange(keys.updateLog(botId), start, "+", "COUNT", count)) as [string, string[]][];
  return rows.map(([id, flat]) => decodeEntry(id, flat));
}
