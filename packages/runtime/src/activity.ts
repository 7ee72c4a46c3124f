import type { Redis } from "ioredis";
import { ACTIVITY_SIZE, keys } from "@starpost/shared";
import { blockingConnection } from "./redis.ts";

export interface ActivityRead {
  /** entries after this position (0: from the first). */
  after: number;
  /** at most this many (0: none, only the current position). */
  limit: number;
  /** only these kinds (undefined: all). */
  kinds: readonly string[] | undefined;
}

/** Entries as JSON texts (`{"position":…,"time":…,"kind":…,…data}`), and the position read up to. */
export interface ActivityPage {
  entries: string[];
  /** where a next read starts: the last entry returned when `limit` cut the page, else the newest read. */
  position: number;
  /** entries after `after` were trimmed away (the log keeps the newest ACTIVITY_SIZE): this page is not all. */
  trimmed: boolean;
}

/** A stream row: id `0-<position>` (activity.lua), fields k (kind), t (Unix ms), d (data JSON). */
type StreamRow = [id: string, fields: string[]];

const positionOf = (id: string) => Number(id.slice(id.indexOf("-") + 1));

/** An entry's JSON: position, time, kind, then its data's members. */
function entryJson([id, fields]: StreamRow): { kind: string; json: string } {
  const field = (name: string) => fields[fields.indexOf(name) + 1];
  const kind = field("k") ?? "";
  const data = field("d") ?? "{}";
  const rest = data.length > 2 ? `,${data.slice(1)}` : "}";
  return { kind, json: `{"position":${positionOf(id)},"time":${Number(field("t"))},"kind":"${kind}"${rest}` };
}

/** `rows` (all after `from`) as a page: the matching entries up to `limit`, and where the next read starts. */
function page(rows: StreamRow[], read: ActivityRead, from: number): ActivityPage {
  const entries: string[] = [];
  let position = from;
  for (const row of rows) {
    if (entries.length >= read.limit) break;
    const { kind, json } = entryJson(row);
    if (!read.kinds || read.kinds.includes(kind)) entries.push(json);
    position = positionOf(row[0]);
  }
  // Positions count from 1 without gaps, and trimming takes the oldest: a first row past the next
  // position means entries after `from` are gone.
  const trimmed = rows.length > 0 && positionOf(rows[0]![0]) > from + 1;
  return { entries, position, trimmed };
}

/** The entries after `read.after` (the whole log at most: it keeps ACTIVITY_SIZE). */
export async function readActivity(redis: Redis, botId: string, read: ActivityRead): Promise<ActivityPage> {
  const key = keys.activity(botId);
  if (read.limit === 0) {
    const [newest] = (await redis.xrevrange(key, "+", "-", "COUNT", 1)) as StreamRow[];
    return { entries: [], position: newest ? positionOf(newest[0]) : read.after, trimmed: false };
  }
  const rows = (await redis.xrange(key, `(0-${read.after}`, "+", "COUNT", ACTIVITY_SIZE)) as StreamRow[];
  return page(rows, read, read.after);
}

/**
 * Waits for entries after a position with XREAD BLOCK, each on a connection of its own: at most
 * `max` at once in this process (a wait beyond answers at once, as if its time had passed). A
 * few idle connections are kept for the next waits; one whose caller went away is closed, and
 * closing the service ends every held read.
 */
export class ActivityWaits {
  private idle: Redis[] = [];
  private busy = new Set<Redis>();
  private closed = false;

  constructor(
    private readonly redis: Redis,
    private readonly max = 64,
    private readonly keepIdle = 4,
  ) {}

  /** The stream rows after position `after` that come within `ms`; [] when none came, or no connection was free. */
  async next(botId: string, after: number, ms: number, signal: AbortSignal): Promise<StreamRow[]> {
    if (this.closed || this.busy.size >= this.max || ms <= 0 || signal.aborted) return [];
    const conn = this.idle.pop() ?? this.connection();
    this.busy.add(conn);
    const abort = () => conn.disconnect();
    signal.addEventListener("abort", abort, { once: true });
    try {
      const res = (await conn.xread("BLOCK", Math.ceil(ms), "STREAMS", keys.activity(botId), `0-${after}`)) as
        [string, StreamRow[]][] | null;
      return res?.[0]?.[1] ?? [];
    } catch (err) {
      if (signal.aborted || this.closed) return [];
      throw err;
    } finally {
      signal.removeEventListener("abort", abort);
      this.busy.delete(conn);
      if (!signal.aborted && !this.closed && this.idle.length < this.keepIdle) this.idle.push(conn);
      else conn.disconnect();
    }
  }

  /** A connection of its own for one blocking read; its errors reach the read that uses it. */
  private connection(): Redis {
    const conn = blockingConnection(this.redis);
    conn.on("error", () => undefined);
    return conn;
  }

  /** `readActivity`, held up to `waitMs` until an entry of the asked kinds comes. */
  async read(botId: string, read: ActivityRead, waitMs: number, signal: AbortSignal): Promise<ActivityPage> {
    const deadline = Date.now() + waitMs;
    let got = await readActivity(this.redis, botId, read);
    while (got.entries.length === 0 && !got.trimmed && read.limit > 0 && Date.now() < deadline && !signal.aborted) {
      const rows = await this.next(botId, got.position, deadline - Date.now(), signal);
      if (rows.length === 0) break;
      got = page(rows, read, got.position);
    }
    return got;
  }

  /** Ends every held read (each answers what it has) and closes the connections. */
  close(): void {
    this.closed = true;
    for (const conn of [...this.idle, ...this.busy]) conn.disconnect();
    this.idle = [];
  }
}
