/**
 * Every update kind starpost knows: whether it is ever produced, whether it must be named in
 * allowed_updates, its lifetime and its delivery queue. Order is the Bot API's Update field order,
 * which is also the order allowed_updates is shown in getWebhookInfo.
 */

type Payload = Record<string, any>;
type QueueKeyOf = (payload: Payload) => string;

const DAY = 86_400;
const byChat: QueueKeyOf = (p) => `c${p?.chat?.id ?? 0}`;
const byUser: QueueKeyOf = (p) => `u${p?.from?.id ?? p?.user?.id ?? 0}`;

export interface UpdateKind {
  name: string;
  /** false for kinds starpost never produces (refused by the platform API). */
  produced: boolean;
  /** delivered only when named in allowed_updates. */
  optIn: boolean;
  /** seconds from creation after which the update is dropped undelivered. */
  lifetime: number;
  /** updates with the same queue key are delivered one at a time, in order. */
  queueKey: QueueKeyOf;
}

const kind = (name: string, queueKey: QueueKeyOf, opts: Partial<UpdateKind> = {}): UpdateKind => ({
  name,
  produced: true,
  optIn: false,
  lifetime: DAY,
  queueKey,
  ...opts,
});

export const UPDATE_KINDS: readonly UpdateKind[] = [
  kind("message", byChat),
  kind("edited_message", byChat),
  kind("channel_post", byChat),
  kind("edited_channel_post", byChat),
  kind("business_connection", byUser),
  kind("business_message", byChat),
  kind("edited_business_message", byChat),
  kind("deleted_business_messages", byChat),
  kind("message_reaction", byChat, { optIn: true }),
  kind("message_reaction_count", byChat, { optIn: true }),
  kind("inline_query", byUser, { lifetime: 30 }),
  kind("chosen_inline_result", byUser, { lifetime: 600 }),
  kind("callback_query", byUser, { lifetime: 150 }),
  // Star invoices have no shipping, so the official shipping flow never starts.
  kind("shipping_query", byUser, { lifetime: 150, produced: false }),
  kind("pre_checkout_query", byUser, { lifetime: 150 }),
  kind("purchased_paid_media", byUser),
  kind("poll", (p) => `p${p?.id ?? 0}`),
  kind("poll_answer", (p) => `u${p?.user?.id ?? p?.voter_chat?.id ?? 0}`),
  kind("my_chat_member", byChat),
  kind("chat_member", byChat, { optIn: true }),
  kind("chat_join_request", byChat),
  kind("chat_boost", byChat),
  kind("removed_chat_boost", byChat),
  kind("managed_bot", byUser),
  kind("guest_message", byChat, { produced: false }),
];

const byName = new Map(UPDATE_KINDS.map((k) => [k.name, k]));

export function updateKind(name: string): UpdateKind | undefined {
  return byName.get(name);
}

/**
 * Every name allowed_updates can hold, in the reference's UpdateType order (Client.h at 01a3679,
 * line 1396), which is the order getWebhookInfo lists them in. `custom_event` and `custom_query`
 * count in the set but are never listed (JsonUpdateTypes, Client.cpp line 5925).
 */
export const ALLOWED_UPDATE_NAMES: readonly string[] = [
  "message",
  "edited_message",
  "channel_post",
  "edited_channel_post",
  "inline_query",
  "chosen_inline_result",
  "callback_query",
  "custom_event",
  "custom_query",
  "shipping_query",
  "pre_checkout_query",
  "poll",
  "poll_answer",
  "my_chat_member",
  "chat_member",
  "chat_join_request",
  "chat_boost",
  "removed_chat_boost",
  "message_reaction",
  "message_reaction_count",
  "business_connection",
  "business_message",
  "edited_business_message",
  "deleted_business_messages",
  "purchased_paid_media",
  "managed_bot",
  "guest_message",
];
export const UNLISTED_UPDATE_NAMES = new Set(["custom_event", "custom_query"]);

/** The reference's DEFAULT_ALLOWED_UPDATE_TYPES: every name but the opt-in kinds. */
export const DEFAULT_ALLOWED: readonly string[] = ALLOWED_UPDATE_NAMES.filter((n) => !byName.get(n)?.optIn);

/**
 * An allowed_updates list read as the reference's get_allowed_update_types reads it (Client.cpp
 * at 01a3679, line 16889): any element that is not a string keeps the previous setting
 * (`"keep"`); names are matched case-insensitively, unknown ones ignored; nothing matched, or the
 * default set itself, is the default (`undefined`); otherwise the set in UpdateType order.
 */
export function normaliseAllowedUpdates(names: readonly unknown[]): string[] | undefined | "keep" {
  if (!names.every((n) => typeof n === "string")) return "keep";
  // ASCII letters only, as td's to_lower_inplace (no "K" for the Kelvin sign).
  const wanted = new Set((names as string[]).map((n) => n.replace(/[A-Z]/g, (c) => c.toLowerCase())));
  const matched = ALLOWED_UPDATE_NAMES.filter((n) => wanted.has(n));
  if (matched.length === 0 || sameList(matched, DEFAULT_ALLOWED)) return undefined;
  return matched;
}

const sameList = (a: readonly string[], b: readonly string[]) => a.length === b.length && a.every((x, i) => x === b[i]);
