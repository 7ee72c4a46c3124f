import type { Redis } from "ioredis";
import { keys } from "@starpost/shared";
import { runtimeScripts } from "./lua/index.ts";

/** Entries kept per bot: the newest calls, enough to see what a test just did. */
export const REQUEST_LOG_SIZE = 100;
const MAX_STRING = 1024;
/**
 * Characters of parameters (names and logged values) an entry keeps: a call with thousands of
 * parameters is logged with the first ones and a count of the rest (TRUNCATED_PARAMS), so an
 * entry stays under about 17 KB however the call was made (REQUEST_LOG_SIZE of them per bot).
 */
export const MAX_LOGGED_PARAMS_CHARS = 16_384;
/** The member that stands for the parameters an entry left out: `"<n> more parameters not logged"`. */
export const TRUNCATED_PARAMS = "…";
/** Parameters that hold a secret, at any depth, are shown as "***" (the bot token is in the path and never logged). */
const SECRET_PARAMS = new Set(["token", "secret_token", "provider_token"]);
const SECRET_IN_JSON = /"(token|secret_token|provider_token)":("(?:[^"\\]|\\.)*"|[^,}\]]*)/g;
/** A URL's `user:password@` (up to the last `@` before the path). */
const USERINFO = /(\b[A-Za-z][A-Za-z0-9+.-]*:\/\/)[^/?#\s]*@/g;

/** The text with every URL's userinfo masked: `https://***@host/…`. Texts without `@` are not scanned. */
export function maskUserinfo(text: string): string {
  return text.includes("@") ? text.replace(USERINFO, "$1***@") : text;
}

/** A text (a JSON-serialized parameter, say) with secret parameters and URL userinfo masked. */
function maskText(text: string): string {
  const masked = text.includes('token"') ? text.replace(SECRET_IN_JSON, '"$1":"***"') : text;
  return maskUserinfo(masked);
}

/** A JSON value with secret parameters and URL userinfo masked at any depth. */
function maskValue(v: unknown): unknown {
  if (typeof v === "string") return maskUserinfo(v);
  if (Array.isArray(v)) return v.map(maskValue);
  if (v === null || typeof v !== "object") return v;
  const out: Record<string, unknown> = {};
  for (const [k, x] of Object.entries(v)) out[k] = SECRET_PARAMS.has(k) ? "***" : maskValue(x);
  return out;
}

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

/**
 * Parameters as logged: secrets masked (the parameters named in SECRET_PARAMS, at any depth, and
 * the userinfo of every URL), long values cut (a file is already just the marker `true`), and
 * parameters past MAX_LOGGED_PARAMS_CHARS left out, counted under TRUNCATED_PARAMS. Only a
 * value that can hold a secret (a string with `@`, an object whose JSON names a secret or holds
 * `@`) is looked at twice.
 */
export function loggedParams(params: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const names = Object.keys(params);
  let used = 0;
  for (const [n, k] of names.entries()) {
    const v = params[k];
    let logged: unknown;
    let size: number;
    if (SECRET_PARAMS.has(k)) [logged, size] = ["***", 3];
    else if (typeof v === "string") {
      logged = maskText(v.length > MAX_STRING ? `${v.slice(0, MAX_STRING)}…` : v);
      size = (logged as string).length;
    } else if (v === null || typeof v === "number" || typeof v === "boolean") [logged, size] = [v, 8];
    else {
      const json = JSON.stringify(v) ?? "";
      const secret = json.includes("@") || json.includes('token"');
      if (json.length > MAX_STRING) {
        const cut = `${json.slice(0, MAX_STRING)}…`;
        logged = secret ? maskText(cut) : cut;
      } else logged = secret ? maskValue(v) : v;
      size = Math.min(json.length, MAX_STRING + 1);
    }
    used += k.length + size;
    if (used > MAX_LOGGED_PARAMS_CHARS) {
      out[TRUNCATED_PARAMS] = `${names.length - n} more parameters not logged`;
      break;
    }
    out[k] = logged;
  }
  return out;
}

/**
 * Writes the request log with at most one write in flight: the entries of calls answered while
 * Redis is busy with the previous write go together in the next one, one script call per bot
 * holding its entries in the order they were added (only its newest REQUEST_LOG_SIZE: older ones
 * would be trimmed at once). An entry thus lags its answer by an event-loop turn, or by one Redis
 * round trip under load. A failed write is passed to `onError`; it never fails a call, whose
 * answer has gone out already.
 */
export class RequestLogWriter {
  /** entry JSONs by bot, oldest first; a Map keeps the bots in the order they were first met. */
  private pending = new Map<string, string[]>();
  private scheduled = false;
  private inFlight: Promise<void> | undefined;

  constructor(
    private readonly redis: Redis,
    private readonly onError: (err: Error) => void,
  ) {}

  add(botId: string, entry: RequestLogEntry): void {
    const json = JSON.stringify(entry);
    const entries = this.pending.get(botId);
    if (entries) entries.push(json);
    else this.pending.set(botId, [json]);
    if (!this.scheduled && !this.inFlight) {
      this.scheduled = true;
      setImmediate(this.flush);
    }
  }

  /** Entries of this bot wait to be written: an entry written elsewhere now would go before them. */
  waiting(botId: string): boolean {
    return this.pending.has(botId);
  }

  /** Resolves once every entry added so far is written (or its write failed). */
  async drain(): Promise<void> {
    while (this.inFlight || this.pending.size > 0) await (this.inFlight ?? this.write());
  }

  private readonly flush = () => {
    this.scheduled = false;
    if (!this.inFlight && this.pending.size > 0) void this.write();
  };

  private write(): Promise<void> {
    const batch = this.pending;
    this.pending = new Map();
    this.inFlight = this.send(batch)
      .catch(this.onError)
      .finally(() => {
        this.inFlight = undefined;
        this.flush();
      });
    return this.inFlight;
  }

  private async send(batch: Map<string, string[]>): Promise<void> {
    const writes: Promise<boolean>[] = [];
    for (const [botId, entries] of batch) {
      writes.push(
        runtimeScripts.recordRequest(
          this.redis,
          { bot: keys.bot(botId), log: keys.requestLog(botId), activity: keys.activity(botId) },
          {
            kept: REQUEST_LOG_SIZE,
            entries: entries.length > REQUEST_LOG_SIZE ? entries.slice(-REQUEST_LOG_SIZE) : entries,
          },
        ),
      );
    }
    const failed = (await Promise.allSettled(writes)).find((r) => r.status === "rejected");
    if (failed) throw (failed as PromiseRejectedResult).reason;
  }
}

/** The newest `limit` entries, oldest first (newest last). */
export async function readRequests(redis: Redis, botId: string, limit: number): Promise<RequestLogEntry[]> {
  const rows = await redis.lrange(keys.requestLog(botId), -limit, -1);
  return rows.map((r) => JSON.parse(r) as RequestLogEntry);
}
