/**
 * Every Redis key starpost uses is built here. Per-bot keys carry the hash tag `{b:<botId>}` so a
 * bot's keys share one Redis Cluster slot and each Lua script touches one slot. The shard channels
 * are named beside their messages' codecs, in channels.ts.
 */

const PREFIX = "sp";
const tag = (botId: string | number) => `{b:${botId}}`;

/** A per-bot name in the bot's slot, `sp:<kind>:{b:<bot id>}` (the shard channels' too). */
export const perBot = (kind: string, botId: string | number) => `${PREFIX}:${kind}:${tag(botId)}`;

/**
 * Global indexes and the delivery queue are split over this many hash tags, so no one Redis
 * Cluster master holds (and serves) all of them. Every process must use the same numbers.
 */
export const WEBHOOK_BOT_SHARDS = 16;
export const DELIVERY_SHARDS = 8;

/** A bot's shard among `n` (FNV-1a of its id: stable across processes, even for sequential ids). */
export function shardOf(botId: string | number, n: number): number {
  let h = 0x811c9dc5;
  for (const ch of String(botId)) h = Math.imul(h ^ ch.charCodeAt(0), 0x01000193);
  return (h >>> 0) % n;
}

export const keys = {
  /** Hash: id, username, first_name, token_hash, created_at, tag (when created with one). */
  bot: (botId: string | number) => `${PREFIX}:bot:${tag(botId)}`,
  /**
   * Global hash: `<address> <port> <host>/<pid>` -> service, every HTTP listener of every running
   * starpost process (own-endpoints.ts), which no webhook may reach.
   */
  ownEndpoints: () => `${PREFIX}:own-endpoints`,
  /** Global hash: lower-cased username -> bot id (uniqueness across bots), `<username>:at` -> when claimed (ms). */
  botUsernames: () => `${PREFIX}:bot-usernames`,
  /** Global counter for generated bot ids. */
  botIdSeq: () => `${PREFIX}:bot-id-seq`,
  /**
   * Global hash: bot id -> when its creation began (ms), the bots created with this tag (platform
   * `tag`). Written before the bot's step, removed after its deletion; an entry whose bot never
   * came is dropped by the tag's next deletion once the creation lease has passed.
   */
  botTag: (tag: string) => `${PREFIX}:bot-tag:${tag}`,

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
  /**
   * Stream: the bot's activity log, the newest ACTIVITY_SIZE entries (activity.lua): calls, updates
   * appended, webhook attempts, confirmations, payments, refunds, renewals, replays. Fields `k`
   * (kind), `t` (Unix ms) and `d` (data JSON); entry ids `0-<position>`, positions from 1.
   */
  activity: (botId: string | number) => `${PREFIX}:activity:${tag(botId)}`,
  /** Set of update kind names; absent means the default set. */
  allowedUpdates: (botId: string | number) => `${PREFIX}:allowed:${tag(botId)}`,

  /**
   * Hash: url, secret_token, max_connections, ip_address (as given), resolved_ip, generation
   * (changes on every set), drain (the drain epoch: N while epoch N is open, -N once it closed;
   * update-log's drain-epoch.lua); absent when no webhook.
   */
  webhook: (botId: string | number) => `${PREFIX}:webhook:${tag(botId)}`,
  /**
   * Hash: last_error_date, last_error_message, last_ok ("1" after a success, "0" after a failure)
   * and `r:<update_id>` -> "<fails>:<delay s>:<wakeup ms>" for updates waiting to be retried;
   * `retry_at` while the bot's next attempt is the retry timer's (keys.webhookRetries): the due
   * time (ms), or "run" while a worker runs it. Delivery status, cleared by set/delete (which keep
   * a "run").
   */
  webhookStatus: (botId: string | number) => `${PREFIX}:webhook-status:${tag(botId)}`,
  /** Set of bot ids that have a webhook (scanned by the workers' reconciler), one per shard. */
  webhookBots: (shard: number) => `${PREFIX}:webhook-bots:{wb-${shard}}`,
  /**
   * String counter: raised by every process that schedules drains when it starts (one that died
   * may have left a step without its drain job); each webhook worker sweeps every webhook bot
   * once when it sees it change.
   */
  sweepEpoch: () => `${PREFIX}:sweep-epoch`,
  /**
   * Sorted set: the webhook bots waiting for a retry, scored by when it is due (Unix ms); while a
   * worker runs one, by when its claim lapses. One member per failing bot (at most one per
   * webhook bot); the workers' one timer for every retry.
   */
  webhookRetries: () => `${PREFIX}:webhook-retries`,
  /** The webhookBots shard that holds this bot. */
  webhookBotsOf: (botId: string | number) => keys.webhookBots(shardOf(botId, WEBHOOK_BOT_SHARDS)),
  /** String with a 1 s TTL: setWebhook with a URL at most once a second per bot. */
  webhookSetLimit: (botId: string | number) => `${PREFIX}:webhook-set-limit:${tag(botId)}`,

  /**
   * String with a 1 s TTL, written just before WAIT (REDIS_WAIT_REPLICAS): WAIT counts from the
   * connection's last write, and this write comes after every earlier write to the bot's master.
   */
  replicaMark: (botId: string | number) => `${PREFIX}:replica-mark:${tag(botId)}`,
  /** String: the id of the poll currently waiting for this bot (across replicas). */
  pollOwner: (botId: string | number) => `${PREFIX}:poll-owner:${tag(botId)}`,
  /** String with TTL: set when a 409 was sent, to space repeated conflicts. */
  lastConflict: (botId: string | number) => `${PREFIX}:last-conflict:${tag(botId)}`,

  /** Hash: chat id -> last message_id in that chat (gap-free: the user's, the bot's and service messages share it). */
  messageSeq: (botId: string | number) => `${PREFIX}:msg-seq:${tag(botId)}`,
  /**
   * Hash: `<chat id>:<message id>` -> Message JSON. The chats' histories: the bot's messages
   * (current text and markup; deleted ones gone), the user's and service messages. A chat's
   * history is read in message_id order, 1..messageSeq. A bot message sent as a reply also has
   * `<chat id>:<message id>:reply` -> the id of the message it replies to.
   */
  messages: (botId: string | number) => `${PREFIX}:messages:${tag(botId)}`,
  /** String with TTL: the bot's answerCallbackQuery for a press, as JSON `{text, show_alert, url}`. */
  callbackAnswer: (botId: string | number, queryId: string) => `${PREFIX}:cbq:${tag(botId)}:${queryId}`,
  /** zset: ids of callback queries appended as updates (member: to_integer<int64> of the id, score: expiry, Unix ms); pruned on every add, so it holds at most 150 s of them. */
  openCallbackQueries: (botId: string | number) => `${PREFIX}:cbq-open:${tag(botId)}`,

  /** Hash: fault id -> fault rule JSON (scripted errors and delays for the bot's next calls). */
  faults: (botId: string | number) => `${PREFIX}:faults:${tag(botId)}`,
  /** String counter: the last fault id. */
  faultSeq: (botId: string | number) => `${PREFIX}:fault-seq:${tag(botId)}`,
  /** List of request log entries (JSON), oldest first, trimmed to the newest few. */
  requestLog: (botId: string | number) => `${PREFIX}:requests:${tag(botId)}`,
  /** Hash: `<chat id>:<message id>` -> the invoice behind an invoice message (payload, amount). */
  invoices: (botId: string | number) => `${PREFIX}:invoices:${tag(botId)}`,
  /** Hash per pre-checkout query (state, deadline, the credit it makes when paid), with TTL. */
  preCheckout: (botId: string | number, queryId: string) => `${PREFIX}:pcq:${tag(botId)}:${queryId}`,
  /** Hash per platform idempotency_key of a payment (query id, body fingerprint), with TTL. */
  paymentKey: (botId: string | number, key: string) => `${PREFIX}:pay-key:${tag(botId)}:${key}`,
  /** Hash per platform idempotency_key of a push of updates (body fingerprint, the first reply), with TTL. */
  pushKey: (botId: string | number, key: string) => `${PREFIX}:push-key:${tag(botId)}:${key}`,
  /** Hash: charge id -> charge JSON (paid, refunded). */
  charges: (botId: string | number) => `${PREFIX}:charges:${tag(botId)}`,
  /** List of StarTransaction JSON, oldest first. */
  starLedger: (botId: string | number) => `${PREFIX}:ledger:${tag(botId)}`,
  /** String: the bot's Star balance. */
  starBalance: (botId: string | number) => `${PREFIX}:balance:${tag(botId)}`,
  /** Hash: invoice link slug -> the invoice behind it (payload, amount, title, subscription_period). */
  invoiceLinks: (botId: string | number) => `${PREFIX}:links:${tag(botId)}`,
  /** Hash: a subscription's first charge id -> subscription JSON (state, expires, canceled, the renewal's parts). */
  subscriptions: (botId: string | number) => `${PREFIX}:subs:${tag(botId)}`,
  /** Hash: `<link slug>:<user id>` -> first charge id of that user's subscription that has not ended. */
  subscribers: (botId: string | number) => `${PREFIX}:subscribers:${tag(botId)}`,
  /** Sorted set: first charge ids of subscriptions that have not ended, scored by expiration (the bot's clock, Unix s). */
  subscriptionsDue: (botId: string | number) => `${PREFIX}:subs-due:${tag(botId)}`,
  /** String: seconds the bot's clock is ahead of real time (POST …/clock). */
  clockOffset: (botId: string | number) => `${PREFIX}:clock:${tag(botId)}`,
  /** Hash: user id -> the user's Stars; a user not in it has unlimited Stars. */
  userStars: (botId: string | number) => `${PREFIX}:user-stars:${tag(botId)}`,

  /** BullMQ prefix; each delivery queue's name carries its own hash tag. */
  queuePrefix: () => `${PREFIX}:q`,
  /** The name of delivery queue `shard`: every key of that queue shares the tag `{dq-<shard>}`. */
  deliveryQueue: (shard: number) => `{dq-${shard}}`,
} as const;

/**
 * Every fixed per-bot key, for deleting a bot in one step. Keys with a TTL and a second id
 * (pre-checkout queries, callback answers) are left to expire: nothing can reach them once the
 * bot's token is gone.
 */
export function botKeys(botId: string | number): string[] {
  return [
    keys.bot(botId),
    keys.chats(botId),
    keys.chatUsernames(botId),
    keys.users(botId),
    keys.updateLog(botId),
    keys.updateSeq(botId),
    keys.activity(botId),
    keys.allowedUpdates(botId),
    keys.webhook(botId),
    keys.webhookStatus(botId),
    keys.webhookSetLimit(botId),
    keys.pollOwner(botId),
    keys.lastConflict(botId),
    keys.messageSeq(botId),
    keys.messages(botId),
    keys.openCallbackQueries(botId),
    keys.invoices(botId),
    keys.charges(botId),
    keys.starLedger(botId),
    keys.starBalance(botId),
    keys.invoiceLinks(botId),
    keys.subscriptions(botId),
    keys.subscribers(botId),
    keys.subscriptionsDue(botId),
    keys.clockOffset(botId),
    keys.userStars(botId),
    keys.faults(botId),
    keys.faultSeq(botId),
    keys.requestLog(botId),
  ];
}
