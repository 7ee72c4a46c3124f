import { ActivityLog, type ActivityPage } from "./activity.js";
import { checkOptions, transport, type StarpostOptions, type Transport } from "./http.js";
import type {
  ActivityEntry,
  ActivityFilter,
  ActivityKind,
  BotSummary,
  CallbackAnswer,
  Chat,
  ClockAdvance,
  CreatedBot,
  Fault,
  FaultSpec,
  Message,
  PaymentResult,
  RequestLogEntry,
  StarsView,
  Subscription,
  Update,
  UserStars,
  User,
  WebhookState,
} from "./types.js";

export { StarpostError, type StarpostOptions } from "./http.js";
export type { ActivityPage } from "./activity.js";
export type * from "./types.js";

/** Longest single wait the server allows for a history read; longer timeouts read again. */
const MAX_WAIT_MS = 30_000;

let nextUserId = 1_000_000_000 + Math.floor(Math.random() * 1_000_000_000);

/**
 * starpost's platform API for tests: create bots, play their users, read what the bots sent,
 * script their failures. Every failed call throws a StarpostError with the envelope's
 * error_code and description.
 */
export class Starpost {
  private readonly http: Transport;
  /** the API root, as bots are given it (`new Bot(token, { client: { apiRoot: sp.url } })` in grammY). */
  readonly url: string;

  /**
   * `url`: the API root (not `…/platform/v1`); `platformToken`: the platform token. A missing or
   * mistaken option throws a TypeError that says which.
   */
  constructor(opts: StarpostOptions) {
    const checked = checkOptions(opts);
    this.url = checked.url;
    this.http = transport(checked);
  }

  /** The client for the STARPOST_URL and STARPOST_PLATFORM_TOKEN that `starpost start` prints. */
  static fromEnv(env: Record<string, string | undefined> = processEnv()): Starpost {
    return new Starpost({ url: env.STARPOST_URL ?? "", platformToken: env.STARPOST_PLATFORM_TOKEN ?? "" });
  }

  /**
   * Registers a bot; its token works at once against the API root. Without `username`, a fresh
   * one (`sp<random>_bot`), since usernames are unique per starpost. Give a `tag` (a test run's
   * id) to delete the run's bots together with `deleteBots({ tag })`.
   */
  async createBot(
    opts: { username?: string; first_name?: string; token?: string; tag?: string } = {},
  ): Promise<StarpostBot> {
    const body = { ...opts, username: opts.username ?? randomUsername() };
    return new StarpostBot(this.http, await this.http.request<CreatedBot>("POST", "/bots", body));
  }

  /** A handle on a bot registered before (by this client, another process, or a test's setup). */
  bot(info: { id: number; username: string; first_name: string; token: string; tag?: string }): StarpostBot {
    return new StarpostBot(this.http, info);
  }

  /** The registered bots (no tokens), by id; with `tag`, only those created with it. */
  async bots(opts: { tag?: string } = {}): Promise<BotSummary[]> {
    const query = opts.tag === undefined ? "" : `?tag=${encodeURIComponent(opts.tag)}`;
    return (await this.http.request<{ bots: BotSummary[] }>("GET", `/bots${query}`)).bots;
  }

  /** Deletes every bot created with `tag` and all their data; returns how many there were. */
  async deleteBots(opts: { tag: string }): Promise<number> {
    return (await this.http.request<{ deleted: number }>("DELETE", `/bots?tag=${encodeURIComponent(opts.tag)}`))
      .deleted;
  }
}

const processEnv = (): Record<string, string | undefined> =>
  (globalThis as { process?: { env: Record<string, string | undefined> } }).process?.env ?? {};

function randomUsername(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(6));
  return `sp${Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("")}_bot`;
}

export class StarpostBot {
  readonly id: number;
  readonly username: string;
  readonly first_name: string;
  readonly tag?: string;
  /** the bot's token (a new one after `rotateToken`). */
  token: string;
  private readonly log: ActivityLog;

  constructor(
    private readonly http: Transport,
    info: { id: number; username: string; first_name: string; token: string; tag?: string },
  ) {
    this.id = info.id;
    this.username = info.username;
    this.first_name = info.first_name;
    this.token = info.token;
    if (info.tag !== undefined) this.tag = info.tag;
    this.log = new ActivityLog(http, this.id);
  }

  /**
   * The current end of the bot's activity log: pass it as `after` to `waitFor` and `assertNone`
   * to look only at what happens from now on.
   */
  fence(): Promise<number> {
    return this.log.fence();
  }

  /**
   * The bot's activity log after `after` (default: the oldest entry kept), in order: its calls,
   * updates appended, webhook attempts, confirmations, payments, refunds, renewals and replays.
   * `waitMs` holds the read until an entry comes.
   */
  activity(
    opts: { after?: number; kinds?: ActivityKind[]; limit?: number; waitMs?: number } = {},
  ): Promise<ActivityPage> {
    return this.log.read(opts);
  }

  /**
   * The first activity entry after `after` that matches (a predicate, or fields such as
   * `{ kind: "confirm", by: "webhook" }`); waits up to `timeoutMs` (default 10 s) and throws
   * when none came.
   */
  waitFor(filter: ActivityFilter, opts: { after?: number; timeoutMs?: number } = {}): Promise<ActivityEntry> {
    return this.log.waitFor(filter, opts);
  }

  /**
   * Proves that something did not happen: throws, listing them, when entries after `after` and up
   * to `before` (default: now, the current fence) match.
   */
  async assertNone(filter: ActivityFilter, opts: { after?: number; before?: number } = {}): Promise<void> {
    const found = await this.log.matching(filter, opts);
    if (found.length > 0)
      throw new Error(
        `bot ${this.id}: ${found.length} activity ${found.length === 1 ? "entry" : "entries"} matched between ${opts.after ?? "the start"} and ${opts.before ?? "now"}:\n${found.map((e) => JSON.stringify(e)).join("\n")}`,
      );
  }

  /**
   * Delivers an update the bot already confirmed once more, as Telegram may after a timeout: the
   * same update_id and body, by webhook or to the next getUpdates (read back from the activity
   * log, which keeps the newest 1000 entries), so the bot's idempotency can be tested.
   */
  async replay(updateId: number): Promise<void> {
    await this.http.request("POST", `/bots/${this.id}/replays`, { update_id: updateId });
  }

  /** Makes the bot's next `times` (default 1) deliveries, by webhook or getUpdates, reach it twice. */
  async duplicateDeliveries(times = 1): Promise<number> {
    return this.failNext("delivery", { duplicate: true, times });
  }

  /** A new token for the bot; the old one fails at once. */
  async rotateToken(): Promise<string> {
    this.token = (await this.http.request<{ token: string }>("POST", `/bots/${this.id}/token`)).token;
    return this.token;
  }

  /** A new user with a private chat with the bot (the chat id is the user's id). */
  async privateChat(user: {
    first_name: string;
    last_name?: string;
    username?: string;
    id?: number;
  }): Promise<StarpostChat> {
    const id = user.id ?? nextUserId++;
    const { id: _ignored, ...fields } = user;
    const chat = await this.http.request<Chat>("PUT", `/bots/${this.id}/chats/${id}`, { type: "private", ...fields });
    return new StarpostChat(this.http, this, chat, { id, is_bot: false, ...fields });
  }

  /** An existing chat of the bot (a channel the bot posts to, say) seen as `from`. */
  chat(chat: Chat, from?: User): StarpostChat {
    return new StarpostChat(this.http, this, chat, from);
  }

  /** Stores a chat for the bot (a group, a supergroup or a channel: negative ids), seen as `from`. */
  async saveChat(chat: Chat, from?: User): Promise<StarpostChat> {
    const { id, ...fields } = chat;
    const saved = await this.http.request<Chat>("PUT", `/bots/${this.id}/chats/${id}`, fields);
    return new StarpostChat(this.http, this, saved, from);
  }

  /** The chats the bot knows, by id. */
  async chats(): Promise<Chat[]> {
    return (await this.http.request<{ chats: Chat[] }>("GET", `/bots/${this.id}/chats`)).chats;
  }

  /** The bot's subscription clock (Unix s): real time plus what `advanceClock` added. */
  async clock(): Promise<number> {
    return (await this.http.request<{ date: number }>("GET", `/bots/${this.id}/clock`)).date;
  }

  /** The bot's Star subscriptions, each user's, with its state and next expiration. */
  async subscriptions(): Promise<Subscription[]> {
    return (await this.http.request<{ subscriptions: Subscription[] }>("GET", `/bots/${this.id}/subscriptions`))
      .subscriptions;
  }

  /** The users the bot has met, with their Stars. */
  async users(): Promise<UserStars[]> {
    return (await this.http.request<{ users: UserStars[] }>("GET", `/bots/${this.id}/users`)).users;
  }

  /** The bot's webhook as its getWebhookInfo shows it, with `next_retry_date` while a delivery fails. */
  async webhook(): Promise<WebhookState> {
    return this.http.request("GET", `/bots/${this.id}/webhook`);
  }

  /** The bot's Star balance and its ledger, newest first (`offset`, `limit` up to 100, as getStarTransactions). */
  async stars(opts: { offset?: number; limit?: number } = {}): Promise<StarsView> {
    const q = new URLSearchParams();
    if (opts.offset !== undefined) q.set("offset", String(opts.offset));
    if (opts.limit !== undefined) q.set("limit", String(opts.limit));
    return this.http.request("GET", `/bots/${this.id}/stars${q.size > 0 ? `?${q}` : ""}`);
  }

  /**
   * Makes the bot's next `times` (default 1) calls of `method` ("*": any) fail or wait first;
   * `("delivery", { duplicate: true })` makes its next deliveries come twice instead.
   */
  async failNext(method: string, fault: FaultSpec = { error_code: 500 }): Promise<number> {
    return (await this.http.request<{ id: number }>("POST", `/bots/${this.id}/faults`, { method, ...fault })).id;
  }

  async faults(): Promise<Fault[]> {
    return (await this.http.request<{ faults: Fault[] }>("GET", `/bots/${this.id}/faults`)).faults;
  }

  async clearFaults(): Promise<void> {
    await this.http.request("DELETE", `/bots/${this.id}/faults`);
  }

  /** The bot's recent Bot API calls, newest last. */
  async requests(opts: { limit?: number } = {}): Promise<RequestLogEntry[]> {
    const query = opts.limit ? `?limit=${opts.limit}` : "";
    return (await this.http.request<{ requests: RequestLogEntry[] }>("GET", `/bots/${this.id}/requests${query}`))
      .requests;
  }

  /**
   * Pushes a hand-built Update (without update_id) for kinds the helpers here do not cover. With
   * `idempotencyKey`, a repeat (a retry after a lost answer) answers the first push's result and appends nothing.
   */
  async pushUpdate(
    update: Update,
    opts: { idempotencyKey?: string } = {},
  ): Promise<{ update_id: number | null; dropped?: string }> {
    return this.http.request("POST", `/bots/${this.id}/updates${keyQuery(opts.idempotencyKey)}`, update);
  }

  /** Pushes up to 1000 Updates in one step, in order (`idempotencyKey`: as for pushUpdate). */
  async pushUpdates(
    updates: Update[],
    opts: { idempotencyKey?: string } = {},
  ): Promise<{ update_id: number | null; dropped?: string }[]> {
    return this.http.request("POST", `/bots/${this.id}/updates${keyQuery(opts.idempotencyKey)}`, updates);
  }

  /**
   * Moves the bot's subscription clock forward by `seconds` and runs every renewal that came due
   * (each a charge and a successful_payment). Other bots' clocks do not move.
   */
  async advanceClock(seconds: number): Promise<ClockAdvance> {
    return this.http.request("POST", `/bots/${this.id}/clock`, { advance_seconds: seconds });
  }

  /** Gives the user a finite number of Stars (null: unlimited, the default); payments debit them, refunds credit them. */
  async setUserStars(user: number | { id: number }, amount: number | null): Promise<void> {
    const id = typeof user === "number" ? user : user.id;
    await this.http.request("PUT", `/bots/${this.id}/users/${id}/stars`, { amount });
  }

  /** Deletes the bot and all its data; its token fails at once. */
  async delete(): Promise<void> {
    await this.http.request("DELETE", `/bots/${this.id}`);
  }
}

const isBotMessage = (m: Message, botId: number) =>
  (m.from?.is_bot === true && m.from.id === botId) || m.sender_chat !== undefined;

/** One chat of a bot, seen from the user's side. Remembers how far `nextBotMessage` has read. */
export class StarpostChat {
  /** messages up to this id have been seen by this object. */
  private cursor = 0;

  constructor(
    private readonly http: Transport,
    readonly bot: StarpostBot,
    readonly chat: Chat,
    readonly user?: User,
  ) {}

  get id(): number {
    return this.chat.id;
  }

  private path(tail: string) {
    return `/bots/${this.bot.id}/chats/${this.chat.id}/${tail}`;
  }

  /** The user sends a text (a /command gets its bot_command entity); the Message as the bot receives it. */
  async send(text: string): Promise<Message> {
    const res = await this.http.request<{ update_id: number | null; message: Message }>("POST", this.path("messages"), {
      text,
      ...(this.user ? { from: this.user } : {}),
    });
    this.cursor = Math.max(this.cursor, res.message.message_id);
    return res.message;
  }

  /**
   * The bot's next message in this chat after the last one seen here (the user's own sends
   * count as seen). Waits up to `timeoutMs` (default 10 s); throws when none came.
   */
  async nextBotMessage(opts: { timeoutMs?: number } = {}): Promise<Message> {
    const deadline = Date.now() + (opts.timeoutMs ?? 10_000);
    for (;;) {
      const wait = Math.max(0, Math.min(MAX_WAIT_MS, deadline - Date.now()));
      const messages = await this.messages({ after: this.cursor, waitMs: wait });
      const found = messages.find((m) => isBotMessage(m, this.bot.id));
      if (found) {
        this.cursor = found.message_id;
        return found;
      }
      if (Date.now() >= deadline)
        throw new Error(`no message from the bot in chat ${this.chat.id} within ${opts.timeoutMs ?? 10_000} ms`);
    }
  }

  /** The chat's history in order (current text and markup; deleted messages gone). */
  async messages(opts: { after?: number; limit?: number; waitMs?: number } = {}): Promise<Message[]> {
    const q = new URLSearchParams();
    if (opts.after) q.set("after_message_id", String(opts.after));
    if (opts.limit) q.set("limit", String(opts.limit));
    if (opts.waitMs) q.set("wait_ms", String(opts.waitMs));
    const query = q.size > 0 ? `?${q}` : "";
    return (await this.http.request<{ messages: Message[] }>("GET", this.path(`messages${query}`))).messages;
  }

  /** How many times each invoice message among the chat's first 1000 was paid (message id -> payments; unpaid ones absent). */
  async paidInvoices(): Promise<Record<string, number>> {
    return (await this.http.request<{ paid: Record<string, number> }>("GET", this.path("messages?limit=1000"))).paid;
  }

  /** A message as it is now (after the bot's edits), or undefined when deleted. */
  async message(messageId: number): Promise<Message | undefined> {
    const [m] = await this.messages({ after: messageId - 1, limit: 1 });
    return m?.message_id === messageId ? m : undefined;
  }

  /**
   * Presses the button with `data` under the bot's message. Waits up to `waitAnswerMs`
   * (default 5 s, 0: not at all) for the bot's answerCallbackQuery and returns it.
   */
  async press(
    message: Message | number,
    data: string,
    opts: { waitAnswerMs?: number } = {},
  ): Promise<{ callback_query_id: string; answer?: CallbackAnswer }> {
    const messageId = typeof message === "number" ? message : message.message_id;
    return this.http.request("POST", this.path("callback_queries"), {
      message_id: messageId,
      data,
      ...(this.user ? { from: this.user } : {}),
      wait_answer_ms: opts.waitAnswerMs ?? 5_000,
    });
  }

  private payer() {
    return this.user ?? { id: this.chat.id, first_name: this.chat.first_name ?? "User" };
  }

  /** The user pays the bot's invoice message; waits for the bot's pre-checkout answer. */
  async pay(invoice: Message | number): Promise<PaymentResult> {
    const messageId = typeof invoice === "number" ? invoice : invoice.message_id;
    return this.http.request("POST", `/bots/${this.bot.id}/payments`, {
      chat_id: this.chat.id,
      message_id: messageId,
      user: this.payer(),
    });
  }

  /** The user pays an invoice link (createInvoiceLink's result) in this private chat; waits for the bot's pre-checkout answer. */
  async payLink(link: string): Promise<PaymentResult> {
    return this.http.request("POST", `/bots/${this.bot.id}/invoice_links/pay`, { link, user: this.payer() });
  }
}

/** A push's `?idempotency_key=` query ("" without a key). */
function keyQuery(key: string | undefined): string {
  return key === undefined ? "" : `?idempotency_key=${encodeURIComponent(key)}`;
}
