import type { Redis } from "ioredis";
import { ACTIVITY_SIZE, keys } from "@starpost/shared";

export interface ActivityRead {
  /** entries after this position. */
  after: string;
  /** at most this many (0: none, only the current position). */
  limit: number;
  /** only these kinds (undefined: all). */
  kinds: readonly string[] | undefined;
}

/** Entries as JSON texts (`{"position":…,"time":…,"kind":…,…data}`), and the position read up to. */
export interface ActivityPage {
  entries: string[];
  /** where a next read starts: the last entry returned when `limit` cut the page, else the newest read. */
  position: string;
}

type StreamRow = [id: string, fields: string[]];

/** An entry's JSON: position, time (Unix ms, from the position), kind, then its data's members. */
function entryJson([id, fields]: StreamRow): { kind: string; json: string } {
  const kind = fields[fields.indexOf("k") + 1] ?? "";
  const data = fields[fields.indexOf("d") + 1] ?? "{}";
  const rest = data.length > 2 ? `,${data.slice(1)}` : "}";
  return { kind, json: `{"position":"${id}","time":${id.split("-")[0]},"kind":"${kind}"${rest}` };
}

/** `rows` as a page: the matching entries up to `limit`, and where the next read starts. */
function page(rows: StreamRow[], read: ActivityRead, from: string): ActivityPage {
  const entries: string[] = [];
  let position = from;
  for (const row of rows) {
    if (entries.length >= read.limit) break;
    const { kind, json } = entryJson(row);
    if (!read.kinds || read.kinds.includes(kind)) entries.push(json);
    position = row[0];
  }
  return { entries, position };
}

/** The entries after `read.after` (the whole log at most: it keeps ACTIVITY_SIZE). */
export async function readActivity(redis: Redis, botId: string, read: ActivityRead): Promise<ActivityPage> {
  const key = keys.activity(botId);
  if (read.limit === 0) {
    const [newest] = (await redis.xrevrange(key, "+", "-", "COUNT", 1)) as StreamRow[];
    return { entries: [], position: newest?.[0] ?? read.after };
  }
  const rows = (await redis.xrange(key, `(${read.after}`, "+", "COUNT", ACTIVITY_SIZE)) as StreamRow[];
  return page(rows, read, read.after);
}

/**
 * Waits for entries after a position with XREAD BLOCK, each on a connection of its own: at most
 * `max` at once in this process (a wait beyond answers at once, as if its time had passed). A
 * few idle connections are kept for the next waits; one whose caller went away is closed.
 */
export class ActivityWaits {
  private idle: Redis[] = [];
  private busy = 0;

  constructor(
    private readonly redis: Redis,
    private readonly max = 64,
    private readonly keepIdle = 4,
  ) {}

  /** The stream rows after `after` that come within `ms`; [] when none came, or no connection was free. */
  async next(botId: string, after: string, ms: number, signal: AbortSignal): Promise<StreamRow[]> {
    if (this.busy >= this.max || ms <= 0 || signal.aborted) return [];
    this.busy++;
    const conn = this.idle.pop() ?? this.redis.duplicate();
    const abort = () => conn.disconnect();
    signal.addEventListener("abort", abort, { once: true });
    try {
      const res = (await conn.xread("BLOCK", Math.ceil(ms), "STREAMS", keys.activity(botId), after)) as
        [string, StreamRow[]][] | null;
      return res?.[0]?.[1] ?? [];
    } catch (err) {
      if (signal.aborted) return [];
      throw err;
    } finally {
      signal.removeEventListener("abort", abort);
      this.busy--;
      if (!signal.aborted && this.idle.length < this.keepIdle) this.idle.push(conn);
      else conn.disconnect();
    }
  }

  /** `readActivity`, held up to `waitMs` until an entry of the asked kinds comes. */
  async read(botId: string, read: ActivityRead, waitMs: number, signal: AbortSignal): Promise<ActivityPage> {
    const deadline = Date.now() + waitMs;
    let got = await readActivity(this.redis, botId, read);
    while (got.entries.length === 0 && read.limit > 0 && Date.now() < deadline && !signal.aborted) {
      const rows = await this.next(botId, got.position, deadline - Date.now(), signal);
      if (rows.length === 0) break;
      got = page(rows, read, got.position);
    }
    return got;
  }

  close(): void {
    for (const conn of this.idle) conn.disconnect();
    this.idle = [];
  }
}
