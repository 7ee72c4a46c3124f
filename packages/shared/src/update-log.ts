import type { Redis } from "ioredis";
import { requestDrain, type DeliveryQueues } from "./delivery-queue.ts";
import { keys } from "./redis-keys.ts";
import { chatJson, type Chat } from "./chats.ts";
import { updateKind } from "./update-kinds.ts";
import { scripts } from "./lua/index.ts";

/** At most this many unconfirmed updates per bot; beyond it new ones are dropped. */
export const MAX_PENDING_UPDATES = 100_000;

export type DropReason = "not_allowed" | "too_many_pending" | "unknown_kind";
export type AppendOutcome = (
  { outcome: "appended"; update_id: number } | { outcome: "dropped"; reason: DropReason }
) & { /** set when the update's message was recorded in its chat's history. */ message_id?: number };

/** What a producer of updates needs: Redis for the Lua step, the delivery queues for a webhook bot. */
export interface UpdateSink {
  redis: Redis;
  deliveryQueue: DeliveryQueues;
}

/**
 * The one way to tell a bot something: runs `step`, a Lua script that appends through
 * update-log.lua, then schedules the bot's webhook delivery when the script's pending signal
 * (log_close's value, picked out of the reply by `pending`) says so. If this process dies in
 * between, the workers' reconciler schedules it.
 */
export async function appendThenDeliver<R>(
  sink: UpdateSink,
  botId: string,
  step: (redis: Redis) => Promise<R>,
  pending: (reply: R) => boolean,
): Promise<R> {
  const reply = await step(sink.redis);
  await requestDrain(sink.deliveryQueue, botId, { cause: "appended", pending: pending(reply) });
  return reply;
}

/**
 * Records an update's message in its chat's history (`keys.messages`) in the same step:
 * `messageId` given: stored as is; absent: the chat's next message_id is taken and put in front
 * of the payload's keys.
 */
export interface HistoryEntry {
  chatId: number | string;
  messageId?: number;
}

export interface NewUpdate {
  kind: string;
  payload: unknown;
  history?: HistoryEntry;
}

/** Chats and users met in pushed payloads, registered in the same step as the append. */
export interface Parties {
  chats: Chat[];
  users: { id: number }[];
}

/**
 * The first KEYS of every script that includes update-log.lua: the bot's log stream, its
 * update_id counter, its allowed_updates set and its webhook hash (log_open's order).
 */
export const logKeys = (botId: string): [string, string, string, string] => [
  keys.updateLog(botId),
  keys.updateSeq(botId),
  keys.allowedUpdates(botId),
  keys.webhook(botId),
];

/** The first ARGV of those scripts: the pending cap, the bot's wake shard channel and the bot id. */
export const logArgs = (botId: string): [number, string, string] => [
  MAX_PENDING_UPDATES,
  keys.wakeChannel(botId),
  botId,
];

/** What a script needs to append an update of `name` it builds itself: kind, opt-in flag, lifetime (ms). */
export function kindArgs(name: string): [string, string, string] {
  const kind = updateKind(name)!;
  return [kind.name, kind.optIn ? "1" : "0", String(kind.lifetime * 1000)];
}

/**
 * Appends updates (`{<kind>: payload}` without update_id) to the bot's log in one Lua call,
 * registering `parties` first, and schedules their delivery (appendThenDeliver). Filtering by
 * allowed_updates happens here, at creation, as in the official server; queued updates stay.
 * `undefined` when the bot does not exist.
 */
export async function appendUpdates(
  sink: UpdateSink,
  botId: string,
  updates: NewUpdate[],
  parties: Parties = { chats: [], users: [] },
  now = Date.now(),
): Promise<AppendOutcome[] | undefined> {
  const args: (string | number)[] = [];
  for (const c of parties.chats) args.push(c.id, c.username?.toLowerCase() ?? "", JSON.stringify(chatJson(c)));
  for (const u of parties.users) args.push(u.id, JSON.stringify(u));
  const known = updates.map((u) => updateKind(u.kind));
  updates.forEach((u, n) => {
    const kind = known[n];
    if (!kind || !kind.produced) return;
    args.push(
      kind.name,
      kind.optIn ? "1" : "0",
      kind.queueKey(u.payload as Record<string, unknown>),
      now + kind.lifetime * 1000,
      JSON.stringify(u.payload),
    );
    args.push(u.history ? String(u.history.chatId) : "", u.history?.messageId ?? "");
  });
  const reply = await appendThenDeliver(
    sink,
    botId,
    (redis) =>
      scripts.appendUpdates(
        redis,
        {
          log: logKeys(botId),
          bot: keys.bot(botId),
          chats: keys.chats(botId),
          chatUsernames: keys.chatUsernames(botId),
          users: keys.users(botId),
          messageSeq: keys.messageSeq(botId),
          messages: keys.messages(botId),
        },
        { log: logArgs(botId), chats: parties.chats.length, users: parties.users.length, records: args },
      ),
    (reply) => reply?.webhook === true,
  );
  if (!reply) return undefined;
  const { results } = reply;
  let r = 0;
  return known.map((kind, n): AppendOutcome => {
    if (!kind || !kind.produced) return { outcome: "dropped", reason: "unknown_kind" };
    const v = results[r++]!;
    const out: AppendOutcome =
      typeof v === "number" ? { outcome: "appended", update_id: v } : { outcome: "dropped", reason: v as DropReason };
    if (updates[n]!.history) out.message_id = results[r++] as number;
    return out;
  });
}

/** How a getUpdates read treats the bot's one waiting poll (see poll-updates.lua). */
export type PollWaitMode = "none" | "claim" | "rearm";

export interface PollRead {
  offset: number;
  limit: number;
  /** the poll's id, unique across replicas ("" for a call that never waits). */
  pollId: string;
  /**
   * "claim": wait if nothing is ready, terminating the previous waiter; "rearm": keep waiting if
   * still the owner (with updates, the claim is kept: the caller releases it after answering).
   */
  mode: PollWaitMode;
  /** how long the claim lives in Redis, ms (the poll's remaining wait plus a margin). */
  ownerTtlMs: number;
  now?: number;
}

export type PollOutcome =
  | { outcome: "webhook" }
  /** the Update JSON strings in id order, never re-parsed. */
  | { outcome: "updates"; updates: string[] }
  | { outcome: "wait" }
  | { outcome: "gone" };

/**
 * getUpdates' read in one round trip: refuses while a webhook is set, confirms below `offset`
 * (negative: keeps the newest |offset|), deletes expired updates, returns up to `limit`; with
 * nothing ready it claims (or re-arms) the bot's waiting-poll slot.
 */
export async function pollUpdates(redis: Redis, botId: string, read: PollRead): Promise<PollOutcome> {
  return scripts.pollUpdates(
    redis,
    {
      stream: keys.updateLog(botId),
      counter: keys.updateSeq(botId),
      webhook: keys.webhook(botId),
      owner: keys.pollOwner(botId),
    },
    {
      offset: read.offset,
      limit: read.limit,
      now: read.now ?? Date.now(),
      pollId: read.pollId,
      mode: read.mode,
      ownerTtl: read.ownerTtlMs,
      wakeChannel: keys.wakeChannel(botId),
      botId,
    },
  );
}

/** Ends a waiting poll's claim on its bot unless another poll took it over. */
export async function releasePoll(redis: Redis, botId: string, pollId: string): Promise<void> {
  await scripts.releasePoll(redis, { owner: keys.pollOwner(botId) }, { pollId });
}

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
 * lua/log-entry.lua (a test reads back what the Lua wrote with these names).
 */
export const ENTRY_FIELDS = { kind: "k", queue: "q", expiresAt: "x", json: "u" } as const;

/** An XRANGE row (`<update_id>-0`, flat field/value list) as a LogEntry. */
export function decodeEntry(id: string, flat: string[]): LogEntry {
  const fields: Record<string, string> = {};
  for (let i = 0; i < flat.length; i += 2) fields[flat[i]!] = flat[i + 1]!;
  return {
    update_id: Number(id.slice(0, id.indexOf("-"))),
    kind: fields[ENTRY_FIELDS.kind]!,
    queue: fields[ENTRY_FIELDS.queue]!,
    expiresAt: Number(fields[ENTRY_FIELDS.expiresAt]),
    json: fields[ENTRY_FIELDS.json]!,
  };
}

/** Reads up to `count` entries after `afterId` (exclusive), oldest first, without confirming. */
export async function readEntries(redis: Redis, botId: string, afterId: number, count: number): Promise<LogEntry[]> {
  const start = afterId > 0 ? `(${afterId}-0` : "-";
  const rows = (await redis.xrange(keys.updateLog(botId), start, "+", "COUNT", count)) as [string, string[]][];
  return rows.map(([id, flat]) => decodeEntry(id, flat));
}

/** Confirms (deletes) the given updates, e.g. after a webhook delivery succeeded or expired. */
export async function confirmUpdates(redis: Redis, botId: string, updateIds: number[]): Promise<number> {
  if (updateIds.length === 0) return 0;
  return redis.xdel(keys.updateLog(botId), ...updateIds.map((id) => `${id}-0`));
}

/** Unconfirmed updates, in-flight ones included (getWebhookInfo's pending_update_count). */
export async function pendingCount(redis: Redis, botId: string): Promise<number> {
  return redis.xlen(keys.updateLog(botId));
}
