import { createRequire } from "node:module";
import { describe, expect, it } from "vitest";
import { Bot as Bot2 } from "node-telegram-bot-api-2";
import { botAndUser, onCleanup, pay, push, useE2E, STAR_PRICE, textFrom, until } from "./support.ts";

// node-telegram-bot-api 0.67 (baseApiUrl; urlencoded forms, setWebHook's parameters in the query
// string, deleting the webhook when getUpdates answers 409) and its 2.x rewrite (apiRoot), side by side.

// 0.67 ships no types; this is the part of its surface the tests use.
interface Message {
  message_id: number;
  text?: string;
  chat: { id: number };
  successful_payment?: { telegram_payment_charge_id: string; invoice_payload: string; total_amount: number };
}
interface TelegramBot {
  on(event: "message" | "successful_payment", fn: (msg: Message) => void): void;
  on(event: "pre_checkout_query", fn: (q: { id: string; invoice_payload: string }) => void): void;
  on(event: "polling_error", fn: (err: Error) => void): void;
  onText(re: RegExp, fn: (msg: Message) => void): void;
  startPolling(): Promise<unknown>;
  stopPolling(options?: { cancel?: boolean; reason?: string }): Promise<void>;
  isPolling(): boolean;
  sendInvoice(
    chatId: number,
    title: string,
    description: string,
    payload: string,
    providerToken: string,
    currency: string,
    prices: { label: string; amount: number }[],
  ): Promise<Message>;
  answerPreCheckoutQuery(id: string, ok: boolean, form?: { error_message?: string }): Promise<boolean>;
  getStarTransactions(): Promise<{ transactions: { id: string; amount: number }[] }>;
  setWebHook(url: string, options?: Record<string, unknown>): Promise<boolean>;
  getWebHookInfo(): Promise<Record<string, unknown>>;
}
type TelegramBotClass = new (token: string, options: Record<string, unknown>) => TelegramBot;

// 0.67 opts into bluebird cancellation unless told it is understood; this keeps its warning out of the output.
process.env.NTBA_FIX_319 = "1";
const TelegramBot = createRequire(import.meta.url)("node-telegram-bot-api") as TelegramBotClass;

const e2e = useE2E();

const webhookInfo = (token: string) => e2e.call(token, "getWebhookInfo");

/**
 * A 0.67 bot for polling starpost, stopped after the test; its polling errors are collected.
 * stopPolling() waits for the held getUpdates to end, hence the short poll timeout. (Its
 * `cancel: true` variant is no use: the cancelled request's `finally` schedules the next poll.)
 */
function pollingBot(token: string) {
  const bot = new TelegramBot(token, {
    baseApiUrl: e2e.apiRoot,
    polling: { autoStart: false, interval: 0, params: { timeout: 2 } },
  });
  const errors: Error[] = [];
  bot.on("polling_error", (err) => void errors.push(err));
  onCleanup(() => bot.stopPolling());
  return { bot, errors };
}

/** startPolling() resolves only when its first getUpdates ends; the bot is polling as soon as it is called. */
const startPolling = (bot: TelegramBot) => void bot.startPolling();

describe("node-telegram-bot-api 0.67 with baseApiUrl", () => {
  it("polls, sends an XTR invoice and answers the pre-checkout query, all as urlencoded forms", async () => {
    const { bot: b, user } = await botAndUser(e2e);
    const { bot, errors } = pollingBot(b.token);
    let invoice: Message | undefined;
    const paid: Message[] = [];
    bot.onText(/^\/buy$/, (msg) => {
      void bot
        .sendInvoice(msg.chat.id, "NTBA pack", "Stars for an ntba bot", "ntba-pack", "", "XTR", [
          { label: "Pack", amount: STAR_PRICE },
        ])
        .then((m) => (invoice = m));
    });
    bot.on("pre_checkout_query", (q) => void bot.answerPreCheckoutQuery(q.id, q.invoice_payload === "ntba-pack"));
    bot.on("successful_payment", (msg) => void paid.push(msg));
    startPolling(bot);

    await push(e2e, b.id, textFrom(user, "/buy"));
    await until("the invoice", () => invoice !== undefined);
    expect(invoice).toMatchObject({ chat: { id: user.id }, invoice: { currency: "XTR", total_amount: STAR_PRICE } });
    const verdict = await pay(e2e, b.id, user, invoice!.message_id);
    expect(verdict.status).toBe("paid");
    await until("the successful_payment message", () => paid.length === 1);
    const charge = (verdict as { telegram_payment_charge_id: string }).telegram_payment_charge_id;
    expect(paid[0]!.successful_payment).toMatchObject({
      telegram_payment_charge_id: charge,
      invoice_payload: "ntba-pack",
      total_amount: STAR_PRICE,
    });

    const { transactions } = await bot.getStarTransactions();
    expect(transactions.map((t) => [t.id, t.amount])).toEqual([[charge, STAR_PRICE]]);
    expect((await e2e.call(b.token, "getMyStarBalance")).amount).toBe(STAR_PRICE);
    await until("the log to be confirmed", async () => (await webhookInfo(b.token)).pending_update_count === 0);
    expect(errors).toEqual([]);
  });

  it("setWebHook with its parameters in the query string; a 409 makes it delete the webhook and poll", async () => {
    const { bot: b, user } = await botAndUser(e2e);
    const { bot, errors } = pollingBot(b.token);
    const texts: string[] = [];
    bot.on("message", (msg) => void texts.push(msg.text ?? ""));

    // Nothing listens there: the update stays pending and the failure shows in getWebhookInfo.
    expect(await bot.setWebHook("http://127.0.0.1:9/ntba", { secret_token: "ntba_secret", max_connections: 3 })).toBe(
      true,
    );
    expect(await bot.getWebHookInfo()).toMatchObject({
      url: "http://127.0.0.1:9/ntba",
      max_connections: 3,
      pending_update_count: 0,
    });
    await push(e2e, b.id, textFrom(user, "while the webhook was set"));
    await until("the delivery failure", async () => (await webhookInfo(b.token)).last_error_message !== undefined);
    expect(await webhookInfo(b.token)).toMatchObject({
      pending_update_count: 1,
      last_error_message: "Connection refused",
    });

    // getUpdates answers 409 while the webhook is set; the library calls setWebHook with no url and polls again.
    startPolling(bot);
    await until("the pending message", () => texts.length === 1);
    expect(texts).toEqual(["while the webhook was set"]);
    await until("the log to be confirmed", async () => (await webhookInfo(b.token)).pending_update_count === 0);
    expect(await bot.getWebHookInfo()).toEqual({ url: "", has_custom_certificate: false, pending_update_count: 0 });
    expect(errors).toEqual([]);
  });
});

describe("node-telegram-bot-api 2.1 with apiRoot", () => {
  it("polls, sends an XTR invoice and answers pre-checkout queries (one approved, one declined)", async () => {
    const { bot: b, user } = await botAndUser(e2e);
    const bot = new Bot2(b.token, { apiRoot: e2e.apiRoot });
    const failures: unknown[] = [];
    bot.catch((err) => void failures.push(err));
    let invoiceId = 0;
    const paid: string[] = [];
    bot.command("buy", async (ctx) => {
      const sent = await ctx.api.sendInvoice({
        chat_id: ctx.chatId!,
        title: "v2 pack",
        description: "Stars for a v2 bot",
        payload: "v2-pack",
        currency: "XTR",
        prices: [{ label: "Pack", amount: STAR_PRICE }],
      });
      invoiceId = sent.message_id;
    });
    bot.on("pre_checkout_query", async (ctx) => {
      if (!("pre_checkout_query" in ctx.update)) return;
      const q = ctx.update.pre_checkout_query;
      await ctx.api.answerPreCheckoutQuery(
        q.from.id === user.id
          ? { pre_checkout_query_id: q.id, ok: true }
          : { pre_checkout_query_id: q.id, ok: false, error_message: "sold out" },
      );
    });
    bot.on("message", (ctx) => {
      const payment = ctx.message?.successful_payment;
      if (payment) paid.push(payment.telegram_payment_charge_id);
    });
    const polling = bot.startPolling(undefined, { timeout: 10 }); // (source, options): undefined is its own long poll
    onCleanup(async () => {
      bot.stop();
      await polling;
    });

    await push(e2e, b.id, textFrom(user, "/buy"));
    await until("the invoice", () => invoiceId > 0);
    const verdict = await pay(e2e, b.id, user, invoiceId);
    expect(verdict.status).toBe("paid");
    await until("the successful_payment message", () => paid.length === 1);
    expect(paid).toEqual([(verdict as { telegram_payment_charge_id: string }).telegram_payment_charge_id]);
    const other = { id: user.id + 600_000, first_name: "Other" };
    expect(await pay(e2e, b.id, other, invoiceId, user.id)).toEqual({ status: "declined", error_message: "sold out" });

    expect(await bot.api.getMyStarBalance()).toEqual({ amount: STAR_PRICE });
    expect((await e2e.call(b.token, "getStarTransactions")).transactions).toHaveLength(1);
    await until("the log to be confirmed", async () => (await webhookInfo(b.token)).pending_update_count === 0);

    bot.stop();
    await polling;
    expect(bot.isRunning()).toBe(false);
    expect(failures).toEqual([]);
  });
});
