/**
 * Every Redis key starpost uses is built here. Per-bot keys carry the hash tag `{b:<botId>}` so a
 * bot's keys share one Redis Cluster slot and each Lua script touches one slot.
 */

const PREFIX = "sp";
const tag = (botId: string | number) => `{b:${botId}}`;

export const keys = {
  /** Hash: id, username, first_name, token_hash, created_at. */
  bot: (botId: string | number) => `${PREFIX}:bot:${tag(botId)}`,
  /** Global hash: lower-cased username -> bot id (uniqueness across bots), `<username>:at` -> when claimed (ms). */
  botUsernames: () => `${PREFIX}:bot-usernames`,
  /** Global counter for generated bot ids. */
  botIdSeq: () => `${PREFIX}:bot-id-seq`,

  /** Hash: chat id -> Chat JSON. */
  chats: (botId: string | number) => `${PREFIX}:chats:${tag(botId)}`,
  /** Hash: lower-cased chat username -> chat id. */
  chatUsernames: (botId: string | number) => `${PREFIX}:chat-usernames:${tag(botId)}`,
  /** Hash: user id -> User JSON (users seen in pushed updates). */
  users: (botId: string | number) => `${PREFIX}:users:${tag(botId)}`,

  /** Stream: the bot's unconfirmed updates; entry id `<update_id>-0`. */
  updateLog: (botId: string | number) => `${PREFIX}:log:${tag(botId)}`,
  /** String counter: the last update_id assigned. */
  updateSeq: (botId: string | number) => `${PREFIX}:log-seq:${tag(botId)}`,
  /** Set of update kind names; absent means the default set. */
  allowedUpdates: (botId: string | number) => `${PREFIX}:allowed:${tag(botId)}`,

  /**
   * Hash: url, secret_token, max_connections, ip_address (as given), resolved_ip, generation
   * (changes on every set); absent when no webhook.
   */
  webhook: (botId: string | number) => `${PREFIX}:webhook:${tag(botId)}`,
  /**
   * Hash: last_error_date, last_error_message, last_ok ("1" after a success, "0" after a failure)
   * and `r:<update_id>` -> "<fails>:<delay s>:<wakeup ms>" for updates waiting to be retried.
   * Delivery status, cleared by set/delete.
   */
  webhookStatus: (botId: string | number) => `${PREFIX}:webhook-status:${tag(botId)}`,
  /** Global set of bot ids that have a webhook (scanned by the workers' reconciler). */
  webhookBots: () => `${PREFIX}:webhook-bots`,
  /** String with a 1 s TTL: setWebhook with a URL at most once a second per bot. */
  webhookSetLimit: (botId: string | number) => `${PREFIX}:webhook-set-limit:${tag(botId)}`,

  /** String: the id of the poll currently waiting for this bot (across replicas). */
  pollOwner: (botId: string | number) => `${PREFIX}:poll-owner:${tag(botId)}`,
  /** String with TTL: set when a 409 was sent, to space repeated conflicts. */
  lastConflict: (botId: string | number) => `${PREFIX}:last-conflict:${tag(botId)}`,

  /** Hash: chat id -> last message_id in that chat. */
  messageSeq: (botId: string | number) => `${PREFIX}:msg-seq:${tag(botId)}`,
  /** Hash: `<chat id>:<message id>` -> stored Message JSON (invoices the bot sent). */
  messages: (botId: string | number) => `${PREFIX}:messages:${tag(botId)}`,
  /** Hash: `<chat id>:<message id>` -> the invoice behind an invoice message (payload, amount). */
  invoices: (botId: string | number) => `${PREFIX}:invoices:${tag(botId)}`,
  /** Hash per pre-checkout query (state, deadline, the credit it makes when paid), with TTL. */
  preCheckout: (botId: string | number, queryId: string) => `${PREFIX}:pcq:${tag(botId)}:${queryId}`,
  /** Hash per platform idempotency_key of a payment (query id, body fingerprint), with TTL. */
  paymentKey: (botId: string | number, key: string) => `${PREFIX}:pay-key:${tag(botId)}:${key}`,
  /** Pub/sub channel: `<bot id>:<query id>` is published when a pre-checkout query is answered. */
  preCheckoutChannel: () => `${PREFIX}:pcq-answered`,
  /** Hash: charge id -> charge JSON (paid, refunded). */
  charges: (botId: string | number) => `${PREFIX}:charges:${tag(botId)}`,
  /** List of StarTransaction JSON, oldest first. */
  starLedger: (botId: string | number) => `${PREFIX}:ledger:${tag(botId)}`,
  /** String: the bot's Star balance. */
  starBalance: (botId: string | number) => `${PREFIX}:balance:${tag(botId)}`,

  /** Pub/sub channel: a bot id is published when its log grows or its poll is terminated. */
  wakeChannel: () => `${PREFIX}:wake`,
  /** BullMQ prefix; the hash tag keeps every queue key in one slot. */
  queuePrefix: () => `{${PREFIX}:q}`,
} as const;

export const DELIVERY_QUEUE = "webhook-delivery";
