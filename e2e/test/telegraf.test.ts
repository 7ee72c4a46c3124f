import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { Telegraf } from "telegraf";
import { message } from "telegraf/filters";
import { metric } from "@starpost/testkit";
import {
  botAndUser,
  buttonPress,
  pay,
  urlsOf,
  push,
  serve,
  useE2E,
  STAR_PRICE,
  textFrom,
  until,
  onCleanup,
} from "./support.ts";

// telegraf pointed at starpost by its one option, telegram.apiRoot; everything else is the library's own.

const e2e = useE2E();

/** A telegraf bot whose handler errors fail the test instead of setting process.exitCode. */
function newBot(token: string) {
  const bot = new Telegraf(token, { telegram: { apiRoot: e2e.apiRoot } });
  const errors: unknown[] = [];
  bot.catch((err) => void errors.push(err));
  return { bot, errors };
}

/** bot.stop(), then the end of launch() (which confirms the handled updates); stopping twice is harmless. */
async function stop(bot: Telegraf, launched: Promise<void>) {
  try {
    bot.stop("test done");
  } catch {
    // not running
  }
  await launched;
}

const webhookInfo = (token: string) => e2e.call(token, "getWebhookInfo");
const pollsWaiting = () => metric(urlsOf(e2e, "gateway"), "starpost_polls_waiting");

describe("telegraf 4.16 with telegram.apiRoot", () => {
  it("launch() polls with timeout 50 (after getMe and deleteWebhook) and receives messages and presses", async () => {
    const { bot: b, user } = await botAndUser(e2e);
    const { bot, errors } = newBot(b.token);
    const texts: string[] = [];
    const answered: boolean[] = [];
    bot.on(message("text"), (ctx) => void texts.push(ctx.message.text));
    bot.on("callback_query", async (ctx) => void answered.push(await ctx.answerCbQuery("noted")));
    // A webhook left from an earlier run: launch() deletes it before polling.
    await e2e.call(b.token, "setWebhook", { url: "http://127.0.0.1:9/old" });

    const launched = bot.launch();
    onCleanup(() => stop(bot, launched));
    let launchError: unknown;
    launched.catch((err) => (launchError = err));
    const seen = () =>
      `; so far: ${texts.length} texts, ${answered.length} presses, launch ${launchError ? `failed: ${String(launchError)}` : "running"}, handler errors ${errors.length}`;
    // telegraf always asks for timeout 50: its poll is held open, not refused or answered at once.
    await until(
      () => `telegraf's long poll to be held${seen()}`,
      async () => (await pollsWaiting()) === 1,
    );
    expect(bot.botInfo).toMatchObject({ id: b.id, username: b.username });
    expect((await webhookInfo(b.token)).url).toBe("");

    await push(e2e, b.id, [textFrom(user, "hi"), buttonPress(user, "b1"), textFrom(user, "there")]);
    await until(
      () => `two messages and a press${seen()}`,
      () => texts.length === 2 && answered.length === 1,
    );
    expect(texts).toEqual(["hi", "there"]);
    expect(answered).toEqual([true]);

    await stop(bot, launched);
    // telegraf confirms what it handled when it stops.
    expect((await webhookInfo(b.token)).pending_update_count).toBe(0);
    await until(
      () => `the poll to be released${seen()}`,
      async () => (await pollsWaiting()) === 0,
    );
    expect(errors).toEqual([]);
  });

  it("replyWithInvoice, answerPreCheckoutQuery and the successful_payment message, with the ledger to match", async () => {
    const { bot: b, user } = await botAndUser(e2e);
    const { bot, errors } = newBot(b.token);
    let invoiceMessageId = 0;
    const paid: { telegram_payment_charge_id: string; invoice_payload: string; total_amount: number }[] = [];
    bot.command("buy", async (ctx) => {
      const sent = await ctx.replyWithInvoice({
        title: "Telegraf pack",
        description: "Stars for a telegraf bot",
        payload: "tg-pack",
        provider_token: "",
        currency: "XTR",
        prices: [{ label: "Pack", amount: STAR_PRICE }],
      });
      invoiceMessageId = sent.message_id;
    });
    bot.on("pre_checkout_query", (ctx) =>
      ctx.preCheckoutQuery.from.id === user.id
        ? ctx.answerPreCheckoutQuery(true)
        : ctx.answerPreCheckoutQuery(false, "not for you"),
    );
    bot.on(message("successful_payment"), (ctx) => void paid.push(ctx.message.successful_payment));
    const launched = bot.launch();
    onCleanup(() => stop(bot, launched));

    await push(e2e, b.id, textFrom(user, "/buy"));
    await until("the invoice", () => invoiceMessageId > 0);
    const verdict = await pay(e2e, b.id, user, invoiceMessageId);
    expect(verdict.status).toBe("paid");
    await until("the successful_payment message", () => paid.length === 1);
    expect(paid[0]).toMatchObject({
      invoice_payload: "tg-pack",
      total_amount: STAR_PRICE,
      telegram_payment_charge_id: (verdict as { telegram_payment_charge_id: string }).telegram_payment_charge_id,
    });

    // Another user is refused by the bot: the platform sees the bot's reason, the ledger nothing.
    const stranger = { id: user.id + 500_000, first_name: "Stranger" };
    expect(await pay(e2e, b.id, stranger, invoiceMessageId, user.id)).toEqual({
      status: "declined",
      error_message: "not for you",
    });

    expect(await bot.telegram.callApi("getMyStarBalance" as never, {} as never)).toEqual({ amount: STAR_PRICE });
    const { transactions } = await e2e.call(b.token, "getStarTransactions");
    expect(transactions).toHaveLength(1);
    expect(transactions[0]).toMatchObject({ amount: STAR_PRICE, source: { type: "user", user: { id: user.id } } });

    await stop(bot, launched);
    expect(errors).toEqual([]);
  });

  it("a webhook set with setWebhook to a loopback URL; answerCbQuery inside the webhook reply really runs", async () => {
    const { bot: b, user } = await botAndUser(e2e);
    const { bot, errors } = newBot(b.token);
    const texts: string[] = [];
    const answered: boolean[] = [];
    bot.on(message("text"), (ctx) => void texts.push(ctx.message.text));
    // telegraf's webhookReply (on by default): this call becomes the body of the webhook's answer.
    bot.on("callback_query", async (ctx) => void answered.push(await ctx.answerCbQuery("thanks")));
    const secret = `telegraf_${randomBytes(16).toString("hex")}`;
    const server = await serve(e2e, bot.webhookCallback("/telegraf", { secretToken: secret }));
    onCleanup(() => server.close());
    const workers = urlsOf(e2e, "webhook-worker");
    const repliesBefore = await metric(workers, "starpost_webhook_reply_methods_total", 'result="ok"');
    try {
      expect(
        await bot.telegram.setWebhook(server.url("/telegraf"), {
          secret_token: secret,
          allowed_updates: ["message", "callback_query"],
        }),
      ).toBe(true);
      expect(await bot.telegram.getWebhookInfo()).toMatchObject({
        url: server.url("/telegraf"),
        allowed_updates: ["message", "callback_query"],
      });

      await push(e2e, b.id, [textFrom(user, "via webhook"), buttonPress(user, "b2")]);
      await until("a message and a press", () => texts.length === 1 && answered.length === 1);
      expect(texts).toEqual(["via webhook"]);
      expect(answered).toEqual([true]);
      // The worker ran answerCallbackQuery from the answer's body, and it succeeded.
      await until(
        "the reply method to run",
        async () =>
          (await metric(workers, "starpost_webhook_reply_methods_total", 'result="ok"')) === repliesBefore + 1,
      );
      await until("the log to drain", async () => (await webhookInfo(b.token)).pending_update_count === 0);
      expect((await webhookInfo(b.token)).last_error_date).toBeUndefined();

      expect(await bot.telegram.deleteWebhook()).toBe(true);
      expect((await webhookInfo(b.token)).url).toBe("");
    } finally {
      await server.close();
    }
    expect(errors).toEqual([]);
  });
});
