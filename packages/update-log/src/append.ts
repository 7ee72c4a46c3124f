import type { Redis } from "ioredis";
import type { DeliveryQueues } from "./delivery-queue.ts";
import { channels, chatJson, keys, toInteger, type Chat } from "@starpost/shared";
import { updateKind } from "./update-kinds.ts";
import { logScripts, type DrainFirst } from "./lua/index.ts";

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
 * update-log.lua, then adds the drain job of the epoch the step opened, when it opened one (its
 * ticket, log_close's value, picked out of the reply by `drain`, with what the job may carry). A
 * request Redis refuses is tried again by this process (DeliveryQueues.request); a step that
 * failed (and may yet be applied, after a timeout) asks Redis again; if this process dies in
 * between, its restart makes the workers sweep.
 */
export async function appendThenDeliver<R>(
  sink: UpdateSink,
  botId: string,
  step: (redis: Redis) => Promise<R>,
  drain: (reply: R) => string | { ticket: string; first?: DrainFirst } | undefined,
): Promise<R> {
  const reply = await sink.deliveryQueue.guard(botId, sink.redis, step(sink.redis));
  const opened = drain(reply);
  if (opened !== undefined)
    await sink.deliveryQueue.request(botId, {
      cause: "appended",
      ...(typeof opened === "string" ? { ticket: opened } : opened),
    });
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
 * update_id counter, its allowed_updates set, its webhook hash and its activity log (log_open's order).
 */
export const logKeys = (botId: string): [string, string, string, string, string] => [
  keys.updateLog(botId),
  keys.updateSeq(botId),
  keys.allowedUpdates(botId),
  keys.webhook(botId),
  keys.activity(botId),
];

/** The first ARGV of those scripts: the pending cap, the bot's wake shard channel and the bot id. */
export const logArgs = (botId: string): [number, string, string] => [
  MAX_PENDING_UPDATES,
  channels.wake.name(botId),
  botId,
];

/** What a script needs to append an update of `name` it builds itself: kind, opt-in flag, lifetime (ms). */
export function kindArgs(name: string): [string, string, string] {
  const kind = updateKind(name)!;
  return [kind.name, kind.optIn ? "1" : "0", String(kind.lifetime * 1000)];
}

/**
 * A callback query's id as answerCallbackQuery reads it (`to_integer<int64>`, Client.cpp at
 * 01a3679, line 14320), so the bot's answer finds the query however the update spelled it.
 */
function openQueryId(kind: string, payload: unknown): string {
  if (kind !== "callback_query") return "";
  const id = (payload as { id?: unknown }).id;
  return typeof id === "string" || typeof id === "number" ? toInteger(String(id), 64).toString() : "";
}

/** A push's idempotency key (remembered `lifetimeMs`) and the fingerprint of what it was sent with. */
export interface IdempotencyKey {
  key: string;
  fingerprint: string;
  lifetimeMs: number;
}

/** What a keyed append answers: this call's outcomes, or the first call's for a key already used. */
export type KeyedAppend =
  | { outcome: "appended"; results: AppendOutcome[]; repeat: boolean }
  | { outcome: "bot_not_found" | "idempotency_key_reused" };

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
  const appended = await appendUpdatesOnce(sink, botId, updates, parties, undefined, now);
  return appended.outcome === "appended" ? appended.results : undefined;
}

/**
 * appendUpdates with an idempotency key (none: like appendUpdates): a key already used appends
 * nothing and answers the first call's outcomes (`repeat`), or `idempotency_key_reused` when it
 * came with other updates.
 */
export async function appendUpdatesOnce(
  sink: UpdateSink,
  botId: string,
  updates: NewUpdate[],
  parties: Parties,
  idempotency: IdempotencyKey | undefined,
  now = Date.now(),
): Promise<KeyedAppend> {
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
    args.push(u.history ? String(u.history.chatId) : "", u.history?.messageId ?? "", openQueryId(kind.name, u.payload));
  });
  const reply = await appendThenDeliver(
    sink,
    botId,
    (redis) =>
      logScripts.appendUpdates(
        redis,
        {
          log: logKeys(botId),
          bot: keys.bot(botId),
          chats: keys.chats(botId),
          chatUsernames: keys.chatUsernames(botId),
          users: keys.users(botId),
          messageSeq: keys.messageSeq(botId),
          messages: keys.messages(botId),
          openQueries: keys.openCallbackQueries(botId),
          idempotency: keys.pushKey(botId, idempotency?.key ?? ""),
          invoices: keys.invoices(botId),
          status: keys.webhookStatus(botId),
        },
        {
          log: logArgs(botId),
          chats: parties.chats.length,
          users: parties.users.length,
          keyLifetime: idempotency?.lifetimeMs ?? 0,
          fingerprint: idempotency?.fingerprint ?? "",
          records: args,
        },
      ),
    (reply) => reply?.drain,
  );
  if (!reply) return { outcome: "bot_not_found" };
  if (reply.repeat && !reply.repeat.sameRequest) return { outcome: "idempotency_key_reused" };
  const { results } = reply;
  let r = 0;
  const outcomes = known.map((kind, n): AppendOutcome => {
    if (!kind || !kind.produced) return { outcome: "dropped", reason: "unknown_kind" };
    const v = results[r++]!;
    const out: AppendOutcome =
      typeof v === "number" ? { outcome: "appended", update_id: v } : { outcome: "dropped", reason: v as DropReason };
    if (updates[n]!.history) out.message_id = results[r++] as number;
    return out;
  });
  return { outcome: "appended", results: outcomes, repeat: reply.repeat !== undefined };
}
