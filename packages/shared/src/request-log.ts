import type { Redis } from "ioredis";
import { isCluster } from "./redis.ts";
import { keys } from "./redis-keys.ts";

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

/**
 * Writes the request log: the entries of calls answered in one event-loop turn go to Redis
 * together, in the order they were added, as one pipeline (on a Redis Cluster, where one
 * pipeline cannot span slots, each entry is its own command). A failed write is passed to
 * `onError`; it never fails a call, whose answer has gone out already.
 */
export class RequestLogWriter {
  private pending: { botId: string; json: string }[] = [];
  private readonly cluster: boolean;

  constructor(
    private readonly redis: Redis,
    private readonly onError: (err: Error) => void,
  ) {
    this.cluster = isCluster(redis);
  }

  add(botId: string, entry: RequestLogEntry): void {
    if (this.pending.length === 0) setImmediate(this.flush);
    this.pending.push({ botId, json: JSON.stringify(entry) });
  }

  private readonly flush = () => {
    const batch = this.pending;
    this.pending = [];
    if (this.cluster) {
      for (const { botId, json } of batch) {
        this.redis.spRecordRequest(keys.bot(botId), keys.requestLog(botId), json, REQUEST_LOG_SIZE).catch(this.onError);
      }
      return;
    }
    const pipeline = this.redis.pipeline();
    for (const { botId, json } of batch) {
      void pipeline.spRecordRequest(keys.bot(botId), keys.requestLog(botId), json, REQUEST_LOG_SIZE);
    }
    pipeline.exec().then((results) => {
      const failed = results?.find(([err]) => err)?.[0];
      if (failed) this.onError(failed);
    }, this.onError);
  };
}

/** The newest `limit` entries, oldest first (newest last). */
export async function readRequests(redis: Redis, botId: string, limit: number): Promise<RequestLogEntry[]> {
  const rows = await redis.lrange(keys.requestLog(botId), -limit, -1);
  return rows.map((r) => JSON.parse(r) as RequestLogEntry);
}
