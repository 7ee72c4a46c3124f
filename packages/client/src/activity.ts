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

const kindOf = (filter: ActivityFilter): ActivityKind | undefined =>
  typeof filter === "object" && typeof filter.kind === "string" ? filter.kind : undefined;

export interface ActivityPage {
  entries: ActivityEntry[];
  position: number;
  /** entries after `after` were trimmed away (a bot's log keeps its newest 1000): the page is not all. */
  trimmed: boolean;
}

/** The log lost entries a fence needs: nothing certain can be said of what it held. */
function trimmedError(botId: number, after: number): Error {
  return new Error(
    `the activity log of bot ${botId} no longer holds every entry after ${after} (it keeps the newest 1000): nothing certain can be said`,
  );
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A bot's activity log, read through the platform API. */
export class ActivityLog {
  constructor(
    private readonly http: Transport,
    private readonly botId: number,
  ) {}

  read(opts: { after?: number; kinds?: ActivityKind[]; limit?: number; waitMs?: number } = {}): Promise<ActivityPage> {
    const q = new URLSearchParams();
    if (opts.after !== undefined) q.set("after", String(opts.after));
    if (opts.kinds?.length) q.set("kinds", opts.kinds.join(","));
    if (opts.limit !== undefined) q.set("limit", String(opts.limit));
    if (opts.waitMs) q.set("wait_ms", String(Math.min(MAX_WAIT_MS, Math.ceil(opts.waitMs))));
    return this.http.request("GET", `/bots/${this.botId}/activity${q.size > 0 ? `?${q}` : ""}`);
  }

  async fence(): Promise<number> {
    return (await this.read({ limit: 0 })).position;
  }

  async waitFor(filter: ActivityFilter, opts: { after?: number; timeoutMs?: number } = {}): Promise<ActivityEntry> {
    const timeoutMs = opts.timeoutMs ?? 10_000;
    const deadline = Date.now() + timeoutMs;
    const kind = kindOf(filter);
    let after = opts.after ?? 0;
    for (;;) {
      const waitMs = Math.max(0, deadline - Date.now());
      const started = Date.now();
      const page = await this.read({ after, limit: 1000, waitMs, ...(kind ? { kinds: [kind] } : {}) });
      const found = page.entries.find((e) => matches(e, filter));
      if (found) return found;
      if (page.trimmed) throw trimmedError(this.botId, after);
      // A held read that came back early and empty (the server was holding too many): not at once again.
      if (page.entries.length === 0 && Date.now() - started < Math.min(waitMs, MAX_WAIT_MS) - 50)
        await pause(Math.min(200, Math.max(0, deadline - Date.now())));
      after = page.position;
      if (Date.now() >= deadline)
        throw new Error(
          `no activity entry of bot ${this.botId} matched within ${timeoutMs} ms after ${opts.after ?? "0"}`,
        );
    }
  }

  async matching(filter: ActivityFilter, opts: { after?: number; before?: number } = {}): Promise<ActivityEntry[]> {
    const before = opts.before ?? (await this.fence());
    const kind = kindOf(filter);
    const found: ActivityEntry[] = [];
    let after = opts.after ?? 0;
    while (after < before) {
      const page = await this.read({ after, limit: 1000, ...(kind ? { kinds: [kind] } : {}) });
      if (page.trimmed) throw trimmedError(this.botId, after);
      found.push(...page.entries.filter((e) => e.position <= before && matches(e, filter)));
      if (page.position === after) break;
      after = page.position;
    }
    return found;
  }
}
