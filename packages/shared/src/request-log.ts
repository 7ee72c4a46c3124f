import type { Redis } from "ioredis";
import { keys } from "./redis-keys.ts";
import { scripts } from "./lua/index.ts";

/** Entries kept per bot: the newest calls, enough to see what a test just did. */
export const REQUEST_LOG_SIZE = 100;
const MAX_STRING = 1024;
/** Parameters that hold a secret are shown as "***" (the token is in the path and never logged). */
const SECRET_PARAMS = new Set(["secret_token"]);

export interface RequestLogEntry {
  date: number;
  method: string;
  params: Record<string, unknown>;
  status: number;
  ok: boolean;
  error_code?: number;
  description?: string;
  duration_ms: number;
}

/** Parameters as logged: secrets masked, long values cut (a file is already just the marker `true`). */
export function loggedParams(params: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(params)) {
    if (SECRET_PARAMS.has(k)) out[k] = "***";
    else if (typeof v === "string") out[k] = v.length > MAX_STRING ? `${v.slice(0, MAX_STRING)}…` : v;
    else if (v === null || typeof v === "number" || typeof v === "boolean") out[k] = v;
    else {
      const json = JSON.stringify(v) ?? "";
      out[k] = json.length > MAX_STRING ? `${json.slice(0, MAX_STRING)}…` : v;
    }
  }
  return out;
}

export async function recordRequest(redis: Redis, botId: string, entry: RequestLogEntry): Promise<void> {
  await scripts.recordRequest(
    redis,
    { bot: keys.bot(botId), log: keys.requestLog(botId) },
    { entry: JSON.stringify(entry), kept: REQUEST_LOG_SIZE },
  );
}

/** The newest `limit` entries, oldest first (newest last). */
export async function readRequests(redis: Redis, botId: string, limit: number): Promise<RequestLogEntry[]> {
  const rows = await redis.lrange(keys.requestLog(botId), -limit, -1);
  return rows.map((r) => JSON.parse(r) as RequestLogEntry);
}
