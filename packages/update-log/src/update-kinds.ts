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

/** The default allowed_updates: every produced kind except the opt-in ones. */
export const DEFAULT_ALLOWED: readonly string[] = UPDATE_KINDS.filter((k) => k.produced && !k.optIn).map((k) => k.name);

/**
 * Normalises an allowed_updates list the way the official server does: names matched
 * case-insensitively, unknown names ignored; `undefined` when nothing matched (meaning the default).
 */
export function normaliseAllowedUpdates(names: readonly unknown[]): string[] | undefined {
  const wanted = new Set(names.filter((n): n is string => typeof n === "string").map((n) => n.toLowerCase()));
  const matched = UPDATE_KINDS.filter((k) => wanted.has(k.name)).map((k) => k.name);
  return matched.length === 0 ? undefined : matched;
}
