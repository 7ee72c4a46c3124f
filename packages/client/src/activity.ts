import type { Transport } from "./http.js";
import type { ActivityEntry, ActivityFilter, ActivityKind } from "./types.js";

/** The server holds one activity read at most this long; longer waits read again. */
const MAX_WAIT_MS = 30_000;

/** Whether `value` has every field of `pattern` (objects compared deeply, arrays whole). */
function hasFields(value: unknown, pattern: unknown): boolean {
  if (pattern === null || typeof pattern !== "object") return Object.is(value, pattern);
  if (value === null || typeof value !== "object") return false;
  if (Array.isArray(pattern))
    return Array.isArray(value) && value.length === pattern.length && pattern.every((p, i) => hasFields(value[i], p));
  return Object.entries(pattern).every(([k, p]) => hasFields((value as Record<string, unknown>)[k], p));
}

export const matches = (entry: ActivityEntry, filter: ActivityFilter): boolean =>
  typeof filter === "function" ? filter(entry) : hasFields(entry, filter);

/** Positions are `<ms>-<n>` stream ids: compared as the pair of numbers. */
export function comparePositions(a: string, b: string): number {
  const [am = 0n, an = 0n] = a.split("-").map((x) => BigInt(x));
  const [bm = 0n, bn = 0n] = b.split("-").map((x) => BigInt(x));
  return am !== bm ? (am < bm ? -1 : 1) : an === bn ? 0 : an < bn ? -1 : 1;
}

const kindOf = (filter: ActivityFilter): ActivityKind | undefined =>
  typeof filter === "object" && typeof filter.kind === "string" ? filter.kind : undefined;

export interface ActivityPage {
  entries: ActivityEntry[];
  position: string;
}

/** A bot's activity log, read through the platform API. */
export class ActivityLog {
  constructor(
    private readonly http: Transport,
    private readonly botId: number,
  ) {}

  read(opts: { after?: string; kinds?: ActivityKind[]; limit?: number; waitMs?: number } = {}): Promise<ActivityPage> {
    const q = new URLSearchParams();
    if (opts.after !== undefined) q.set("after", opts.after);
    if (opts.kinds?.length) q.set("kinds", opts.kinds.join(","));
    if (opts.limit !== undefined) q.set("limit", String(opts.limit));
    if (opts.waitMs) q.set("wait_ms", String(Math.min(MAX_WAIT_MS, Math.ceil(opts.waitMs))));
    return this.http.request("GET", `/bots/${this.botId}/activity${q.size > 0 ? `?${q}` : ""}`);
  }

  async fence(): Promise<string> {
    return (await this.read({ limit: 0 })).position;
  }

  async waitFor(filter: ActivityFilter, opts: { after?: string; timeoutMs?: number } = {}): Promise<ActivityEntry> {
    const timeoutMs = opts.timeoutMs ?? 10_000;
    const deadline = Date.now() + timeoutMs;
    const kind = kindOf(filter);
    let after = opts.after ?? "0";
    for (;;) {
      const waitMs = Math.max(0, deadline - Date.now());
      const page = await this.read({ after, limit: 1000, waitMs, ...(kind ? { kinds: [kind] } : {}) });
      const found = page.entries.find((e) => matches(e, filter));
      if (found) return found;
      after = page.position;
      if (Date.now() >= deadline)
        throw new Error(
          `no activity entry of bot ${this.botId} matched within ${timeoutMs} ms after ${opts.after ?? "0"}`,
        );
    }
  }

  async matching(filter: ActivityFilter, opts: { after?: string; before?: string } = {}): Promise<ActivityEntry[]> {
    const before = opts.before ?? (await this.fence());
    const kind = kindOf(filter);
    const found: ActivityEntry[] = [];
    let after = opts.after ?? "0";
    for (;;) {
      const page = await this.read({ after, limit: 1000, ...(kind ? { kinds: [kind] } : {}) });
      for (const e of page.entries) {
        if (comparePositions(e.position, before) > 0) return found;
        if (matches(e, filter)) found.push(e);
      }
      if (page.entries.length === 0 || comparePositions(page.position, before) >= 0 || page.position === after)
        return found;
      after = page.position;
    }
  }
}
