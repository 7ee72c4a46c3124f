import type { ChaosStack } from "./harness.ts";
import { sleep } from "./harness.ts";

/**
 * The load the chaos run keeps up while processes die: platform pushes to polling and webhook
 * bots (sequential per chat, so acknowledged order is known), payments answered over polling and
 * over webhooks (in the webhook reply), refunds, Star subscriptions renewed by advancing the shops'
 * clocks (each subscriber can afford two renewals, so renewals also fail), and a bot switching
 * between webhook and polling.
 * It records what the platform API acknowledged and what the bots received, for the invariants.
 */

export interface Bot {
  id: number;
  token: string;
  role: "polling" | "webhook" | "toggler" | "shop-polling" | "shop-webhook";
  chats: number[];
  secret: string;
}

export interface Acked {
  bot: number;
  chat: number;
  seq: number;
  text: string;
}

export interface Ledger {
  /** every Update each bot received, by update_id (redeliveries collapse). */
  received: Map<number, Map<number, any>>;
  /** webhook receipts in arrival order: bot id, the Update. */
  webhookOrder: { bot: number; update: any }[];
  acked: Acked[];
  /** charges the platform heard "paid" for; refunds the bot heard true for. */
  paid: Map<number, string[]>;
  refunded: Map<number, string[]>;
  ops: Record<string, number>;
  /** answers that should never happen (a refund of a paid charge refused). */
  refusals: string[];
}

const chat = (id: number) => ({ id, type: "private", first_name: `U${id}` });

export async function createBots(s: ChaosStack): Promise<Bot[]> {
  const roles: [Bot["role"], number][] = [
    ["polling", 1],
    ["polling", 1],
    ["webhook", 2],
    ["webhook", 2],
    ["toggler", 1],
    ["shop-polling", 1],
    ["shop-webhook", 1],
  ];
  const bots: Bot[] = [];
  let chatId = 1000;
  for (const [role, chats] of roles) {
    const b = await s.local.platform.createBot();
    const bot: Bot = {
      id: b.id,
      token: b.token,
      role,
      chats: Array.from({ length: chats }, () => ++chatId),
      secret: `secret${b.id}`,
    };
    for (const c of bot.chats) await s.local.platform.putChat(bot.id, chat(c));
    if (role === "webhook" || role === "shop-webhook") {
      const r = await s.bot(bot.token, "setWebhook", { url: s.receiver.url, secret_token: bot.secret });
      if (!r?.body.ok) throw new Error(`setWebhook failed: ${JSON.stringify(r?.body)}`);
    }
    bots.push(bot);
  }
  return bots;
}

export function newLedger(bots: Bot[]): Ledger {
  return {
    received: new Map(bots.map((b) => [b.id, new Map()])),
    webhookOrder: [],
    acked: [],
    paid: new Map(bots.map((b) => [b.id, []])),
    refunded: new Map(bots.map((b) => [b.id, []])),
    refusals: [],
    ops: {
      pushes: 0,
      pushesAcked: 0,
      paid: 0,
      declined: 0,
      expired: 0,
      refunds: 0,
      subscribed: 0,
      renewals: 0,
      renewalsEnded: 0,
      webhookSet: 0,
      webhookDeleted: 0,
    },
  };
}

/** What a shop bot answers: the payer marks invoices it wants declined in their payload. */
export const answerFor = (q: any) =>
  String(q.invoice_payload).startsWith("decline") ? { ok: false, error_message: "Sold out" } : { ok: true };

export class Workload {
  private stopped = false;
  private pollStopped = false;
  private readonly loops: Promise<void>[] = [];
  private readonly pollers: Promise<void>[] = [];
  private readonly links = new Map<number, string>();

  constructor(
    private readonly s: ChaosStack,
    private readonly bots: Bot[],
    readonly ledger: Ledger,
    private readonly random: () => number,
  ) {
    const bySecret = new Map(bots.map((b) => [b.secret, b]));
    s.receiver.answer = (req) => {
      const bot = bySecret.get(String(req.headers["x-telegram-bot-api-secret-token"]));
      if (!bot) return { status: 401 };
      this.receive(bot, req.update, true);
      const q = req.update.pre_checkout_query;
      if (q)
        return {
          body: JSON.stringify({ method: "answerPreCheckoutQuery", pre_checkout_query_id: q.id, ...answerFor(q) }),
        };
      return undefined;
    };
  }

  start(): void {
    for (const bot of this.bots) {
      if (bot.role === "polling" || bot.role === "webhook" || bot.role === "toggler")
        for (const c of bot.chats) this.loops.push(this.pusher(bot, c));
      if (bot.role === "polling" || bot.role === "toggler" || bot.role === "shop-polling")
        this.pollers.push(this.poller(bot));
      if (bot.role.startsWith("shop")) this.loops.push(this.payer(bot, this.random() * 1e9));
      if (bot.role === "toggler") this.loops.push(this.toggler(bot));
    }
  }

  /** Ends pushes, payments and toggles (each finishes the operation in hand); pollers keep running. */
  async stop(): Promise<void> {
    this.stopped = true;
    await Promise.all(this.loops);
  }

  async stopPollers(): Promise<void> {
    this.pollStopped = true;
    await Promise.all(this.pollers);
  }

  private receive(bot: Bot, update: any, webhook: boolean): void {
    this.ledger.received.get(bot.id)!.set(update.update_id, update);
    if (webhook) this.ledger.webhookOrder.push({ bot: bot.id, update });
  }

  private async pusher(bot: Bot, chatId: number): Promise<void> {
    let seq = 0;
    while (!this.stopped) {
      seq++;
      const text = `${bot.id}/${chatId}/${seq}`;
      const r = await this.s.platform("POST", `/bots/${bot.id}/updates`, {
        message: { message_id: seq, from: chat(chatId), chat: chat(chatId), date: Math.floor(Date.now() / 1000), text },
      });
      this.ledger.ops.pushes!++;
      if (r?.status === 200 && typeof r.body.result?.update_id === "number") {
        this.ledger.acked.push({ bot: bot.id, chat: chatId, seq, text });
        this.ledger.ops.pushesAcked!++;
      }
      await sleep(100 + this.random() * 200);
    }
  }

  private async poller(bot: Bot): Promise<void> {
    let offset = 0;
    while (!this.pollStopped) {
      const r = await this.s.bot(bot.token, "getUpdates", { offset, timeout: 1 });
      if (r?.status !== 200) {
        await sleep(200); // a killed process, or 409 while the toggler's webhook is set
        continue;
      }
      for (const u of r.body.result as any[]) {
        this.receive(bot, u, false);
        offset = u.update_id + 1;
        if (u.pre_checkout_query) void this.answer(bot, u.pre_checkout_query);
      }
    }
  }

  private async answer(bot: Bot, q: any): Promise<void> {
    for (let i = 0; i < 3; i++) {
      const r = await this.s.bot(bot.token, "answerPreCheckoutQuery", { pre_checkout_query_id: q.id, ...answerFor(q) });
      if (r && r.status < 500) return;
      await sleep(300);
    }
  }

  /** Until told to stop: an invoice, a payment retried with its idempotency key until it has an outcome, sometimes a refund. */
  private async payer(bot: Bot, salt: number): Promise<void> {
    const payerChat = bot.chats[0]!;
    for (let n = 1; !this.stopped; n++) {
      const payload = `${this.random() < 0.2 ? "decline" : "accept"}-${n}`;
      let invoice: number | undefined;
      while (invoice === undefined && !this.stopped) {
        const r = await this.s.bot(bot.token, "sendInvoice", {
          chat_id: payerChat,
          title: "T",
          description: "D",
          payload,
          currency: "XTR",
          prices: [{ label: "x", amount: 1 + (n % 7) }],
        });
        if (r?.status === 200) invoice = r.body.result.message_id;
        else await sleep(300);
      }
      if (invoice === undefined) return;
      const body = {
        chat_id: payerChat,
        message_id: invoice,
        user: chat(payerChat),
        idempotency_key: `pay-${Math.floor(salt)}-${n}`,
      };
      // A payment in flight is seen through to its outcome even after stop (the key makes retries safe).
      const outcome = await this.platformUntilAnswered("POST", `/bots/${bot.id}/payments`, body);
      this.ledger.ops[outcome.status]!++;
      if (outcome.status === "paid") {
        this.ledger.paid.get(bot.id)!.push(outcome.telegram_payment_charge_id);
        if (this.random() < 0.4) await this.refund(bot, payerChat, outcome.telegram_payment_charge_id);
      }
      if (n % 4 === 0) await this.subscribe(bot, n, salt);
    }
  }

  /** Retries a platform call until it is answered (a killed process answers nothing or 5xx); its result. */
  private async platformUntilAnswered(method: string, path: string, body: unknown): Promise<any> {
    for (;;) {
      const r = await this.s.platform(method, path, body);
      if (r?.status === 200) return r.body.result;
      await sleep(300);
    }
  }

  /** A new subscriber with Stars for the first payment and two renewals pays the shop's subscription link; then a month passes. */
  private async subscribe(bot: Bot, n: number, salt: number): Promise<void> {
    const price = 3;
    while (!this.links.has(bot.id)) {
      const r = await this.s.bot(bot.token, "createInvoiceLink", {
        title: "S",
        description: "D",
        payload: "accept-sub",
        currency: "XTR",
        prices: [{ label: "m", amount: price }],
        subscription_period: 2_592_000,
      });
      if (r?.status === 200) this.links.set(bot.id, r.body.result);
      else await sleep(300);
    }
    const user = 500_000 + n;
    await this.platformUntilAnswered("PUT", `/bots/${bot.id}/users/${user}/stars`, { amount: 3 * price });
    const body = { link: this.links.get(bot.id), user: chat(user), idempotency_key: `sub-${Math.floor(salt)}-${n}` };
    const outcome = await this.platformUntilAnswered("POST", `/bots/${bot.id}/invoice_links/pay`, body);
    if (outcome.status === "paid") {
      this.ledger.paid.get(bot.id)!.push(outcome.telegram_payment_charge_id);
      this.ledger.ops.subscribed!++;
    }
    // A retried advance moves the clock again: more renewals come due, each still one step.
    const advanced = await this.platformUntilAnswered("POST", `/bots/${bot.id}/clock`, { advance_seconds: 2_592_000 });
    this.ledger.ops.renewals! += advanced.renewals;
    this.ledger.ops.renewalsEnded! += advanced.ended;
  }

  private async refund(bot: Bot, userId: number, chargeId: string): Promise<void> {
    for (;;) {
      const r = await this.s.bot(bot.token, "refundStarPayment", {
        user_id: userId,
        telegram_payment_charge_id: chargeId,
      });
      // CHARGE_ALREADY_REFUNDED on a retry: the first attempt got through before its process died.
      if (r?.status === 200 || (r?.status === 400 && /ALREADY_REFUNDED/.test(r.body.description))) {
        this.ledger.refunded.get(bot.id)!.push(chargeId);
        this.ledger.ops.refunds!++;
        return;
      }
      if (r && r.status < 500) {
        this.ledger.refusals.push(`refund of ${chargeId} refused: ${JSON.stringify(r.body)}`);
        return;
      }
      await sleep(300);
    }
  }

  private async toggler(bot: Bot): Promise<void> {
    let webhook = false;
    while (!this.stopped) {
      await sleep(2000 + this.random() * 1500);
      const r = webhook
        ? await this.s.bot(bot.token, "deleteWebhook")
        : await this.s.bot(bot.token, "setWebhook", { url: this.s.receiver.url, secret_token: bot.secret });
      if (r?.body?.ok) {
        webhook = !webhook;
        this.ledger.ops[webhook ? "webhookSet" : "webhookDeleted"]!++;
      }
    }
  }
}
