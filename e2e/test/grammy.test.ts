import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { Bot, GrammyError, webhookCallback } from "grammy";
import { run } from "@grammyjs/runner";
import { readCompose } from "@starpost/testkit";
import type { Message, SuccessfulPayment } from "grammy/types";
import {
  botAndUser,
  buttonPress,
  pay,
  push,
  serve,
  useE2E,
  STAR_PRICE,
  textFrom,
  until,
  onCleanup,
} from "./support.ts";

// grammY pointed at starpost by its one option, client.apiRoot; everything else is the library's own.

const e2e = useE2E();

const newBot = (token: string) => new Bot(token, { client: { apiRoot: e2e.apiRoot } });

/** bot.start() until onStart ran (getMe and deleteWebhook went through); a start that fails rejects. */
async function startPolling(bot: Bot) {
  let started!: () => void;
  const ready = new Promise<void>((r) => (started = r));
  const done = bot.start({ timeout: 30, onStart: () => started() });
  await Promise.race([ready, done.then(() => Promise.reject(new Error("bot.start() ended before onStart")))]);
  return { done }; // wrapped: an async function returning the promise itself would wait for it
}

const pending = async (token: string) => (await e2e.call(token, "getWebhookInfo")).pending_update_count as number;

describe("grammY 1.46 with client.apiRoot", () => {
  it("runs against docker-compose.yml's services, each its own OS process or container, with at least two webhook workers", async () => {
    const composed = readCompose({ PLATFORM_TOKEN: "only-to-read-the-file", INTERNAL_TOKEN: "only-to-read-the-file" });
    const running = e2e.instances;
    expect([...new Set(running.map((p) => p.service))].sort()).toEqual(composed.map((s) => s.name).sort());
    expect(running.filter((p) => p.service === "webhook-worker").length).toBeGreaterThanOrEqual(2);
    const ids = running.map((p) => p.id);
    expect(new Set(ids).size).toBe(running.length);
    expect(ids).not.toContain(`process ${process.pid}`);
    for (const p of running) expect((await fetch(`${p.url}/healthz`)).status).toBe(200);
  });

  it("bot.start() long polling receives messages and button presses pushed through the platform API", async () => {
    const { bot: b, user } = await botAndUser(e2e);
    const bot = newBot(b.token);
    const texts: string[] = [];
    const answered: boolean[] = [];
    bot.on("message:text", (ctx) => void texts.push(ctx.message.text));
    bot.on("callback_query:data", async (ctx) => {
      answered.push(await ctx.answerCallbackQuery({ text: `got ${ctx.callbackQuery.data}` }));
    });
    const { done } = await startPolling(bot);
    onCleanup(() => bot.stop());
    expect(bot.botInfo).toMatchObject({ id: b.id, is_bot: true, username: b.username });

    await push(e2e, b.id, textFrom(user, "hello"));
    await push(e2e, b.id, [buttonPress(user, "like"), textFrom(user, "again")]);
    await until("two messages and a press", () => texts.length === 2 && answered.length === 1);
    expect(texts).toEqual(["hello", "again"]);
    expect(answered).toEqual([true]);
    // The next long poll's offset confirmed everything the bot handled.
    await until("the log to be confirmed", async () => (await pending(b.token)) === 0);

    await bot.stop();
    await done;
    await push(e2e, b.id, textFrom(user, "after stop"));
    expect(await pending(b.token)).toBe(1);
    expect(texts).toHaveLength(2);
  });

  it("replyWithInvoice in XTR, answerPreCheckoutQuery, successful_payment, refundStarPayment", async () => {
    const { bot: b, user } = await botAndUser(e2e);
    const bot = newBot(b.token);
    let invoice: Message.InvoiceMessage | undefined;
    const payments: SuccessfulPayment[] = [];
    const refunds: unknown[] = [];
    bot.command("buy", async (ctx) => {
      invoice = await ctx.replyWithInvoice("Star pack", "Twenty-five stars of goodwill", "pack-25", "XTR", [
        { label: "Pack", amount: STAR_PRICE },
      ]);
    });
    bot.on("pre_checkout_query", (ctx) =>
      ctx.answerPreCheckoutQuery(ctx.preCheckoutQuery.invoice_payload === "pack-25"),
    );
    bot.on("message:successful_payment", (ctx) => void payments.push(ctx.message.successful_payment));
    bot.on("message", (ctx) => {
      if ("refunded_payment" in ctx.message) refunds.push(ctx.message.refunded_payment);
    });
    const { done } = await startPolling(bot);
    onCleanup(() => bot.stop());

    await push(e2e, b.id, textFrom(user, "/buy"));
    await until("the invoice", () => invoice !== undefined);
    expect(invoice).toMatchObject({
      chat: { id: user.id, type: "private" },
      invoice: { title: "Star pack", currency: "XTR", total_amount: STAR_PRICE, start_parameter: "" },
    });

    const verdict = await pay(e2e, b.id, user, invoice!.message_id);
    expect(verdict.status).toBe("paid");
    const charge = (verdict as { telegram_payment_charge_id: string }).telegram_payment_charge_id;
    await until("the successful_payment message", () => payments.length === 1);
    expect(payments[0]).toMatchObject({
      currency: "XTR",
      total_amount: STAR_PRICE,
      invoice_payload: "pack-25",
      telegram_payment_charge_id: charge,
    });
    expect(await bot.api.getMyStarBalance()).toMatchObject({ amount: STAR_PRICE });

    expect(await bot.api.refundStarPayment(user.id, charge)).toBe(true);
    const again = await bot.api.refundStarPayment(user.id, charge).catch((e: unknown) => e);
    expect(again).toBeInstanceOf(GrammyError);
    expect(again).toMatchObject({ error_code: 400, description: "Bad Request: CHARGE_ALREADY_REFUNDED" });
    await until("the refunded_payment message", () => refunds.length === 1);
    expect(refunds[0]).toMatchObject({ currency: "XTR", total_amount: STAR_PRICE, telegram_payment_charge_id: charge });

    // The Star ledger as the service keeps it: the payment in, the refund out, nothing left.
    expect((await e2e.call(b.token, "getMyStarBalance")).amount).toBe(0);
    const { transactions } = await e2e.call(b.token, "getStarTransactions");
    expect(transactions).toHaveLength(2);
    expect(transactions.map((t: { id: string; amount: number }) => [t.id, t.amount])).toEqual([
      [charge, STAR_PRICE],
      [charge, STAR_PRICE],
    ]);
    expect(transactions[0].source).toMatchObject({ type: "user", user: { id: user.id } });
    expect(transactions[1].receiver).toMatchObject({ type: "user", user: { id: user.id } });

    await bot.stop();
    await done;
  });

  it("webhookCallback receives deliveries and accepts the secret through the Telegram header, no shim", async () => {
    const { bot: b, user } = await botAndUser(e2e);
    const bot = newBot(b.token);
    const texts: string[] = [];
    const answered: boolean[] = [];
    bot.on("message:text", (ctx) => void texts.push(ctx.message.text));
    bot.on("callback_query:data", async (ctx) => void answered.push(await ctx.answerCallbackQuery()));
    const secret = `grammy_${randomBytes(16).toString("hex")}`;
    const server = await serve(e2e, webhookCallback(bot, "http", { secretToken: secret }));
    onCleanup(() => server.close());
    try {
      // First with a secret grammY does not expect: it answers 401 and starpost shows the error.
      expect(await bot.api.setWebhook(server.url("/grammy"), { secret_token: "not_the_secret" })).toBe(true);
      await push(e2e, b.id, textFrom(user, "one"));
      await until("the 401 to be recorded", async () =>
        /401/.test((await bot.api.getWebhookInfo()).last_error_message ?? ""),
      );
      expect(texts).toEqual([]);
      expect((await bot.api.getWebhookInfo()).pending_update_count).toBe(1);

      await new Promise((r) => setTimeout(r, 1100)); // setWebhook with a URL: at most once a second
      expect(await bot.api.setWebhook(server.url("/grammy"), { secret_token: secret, max_connections: 5 })).toBe(true);
      await push(e2e, b.id, [textFrom(user, "two"), buttonPress(user, "x"), textFrom(user, "three")]);
      await until("four deliveries", () => texts.length === 3 && answered.length === 1);
      expect(texts).toEqual(["one", "two", "three"]); // one chat: in order
      expect(answered).toEqual([true]);
      await until("the log to drain", async () => (await bot.api.getWebhookInfo()).pending_update_count === 0);
      const info = await bot.api.getWebhookInfo();
      expect(info).toMatchObject({
        url: server.url("/grammy"),
        has_custom_certificate: false,
        pending_update_count: 0,
        max_connections: 5,
      });
      expect(info.last_error_date).toBeUndefined();

      expect(await bot.api.deleteWebhook()).toBe(true);
      expect(await bot.api.getWebhookInfo()).toEqual({
        url: "",
        has_custom_certificate: false,
        pending_update_count: 0,
      });
    } finally {
      await server.close();
    }
  });

  it("@grammyjs/runner with concurrent handlers loses and repeats nothing", async () => {
    const { bot: b } = await botAndUser(e2e);
    const bot = newBot(b.token);
    const seen = new Map<number, number>();
    let inFlight = 0;
    let maxInFlight = 0;
    bot.on("message:text", async (ctx) => {
      inFlight++;
      maxInFlight = Math.max(maxInFlight, inFlight);
      await new Promise((r) => setTimeout(r, 2 + (ctx.update.update_id % 5) * 4));
      seen.set(ctx.update.update_id, (seen.get(ctx.update.update_id) ?? 0) + 1);
      inFlight--;
    });
    const handle = run(bot, { runner: { fetch: { timeout: 30 } } });
    onCleanup(() => handle.isRunning() && handle.stop());

    const users = Array.from({ length: 6 }, (_, i) => ({
      id: 8_100_000 + (b.id % 1000) * 10 + i,
      first_name: `R${i}`,
    }));
    const ids: number[] = [];
    for (let wave = 0; wave < 5; wave++) {
      ids.push(
        ...(await push(
          e2e,
          b.id,
          Array.from({ length: 60 }, (_, i) => textFrom(users[i % users.length]!, `w${wave}m${i}`)),
        )),
      );
      await new Promise((r) => setTimeout(r, 30));
    }
    await until("300 updates handled", () => seen.size === ids.length && inFlight === 0, 30_000);
    expect([...seen.keys()].sort((x, y) => x - y)).toEqual(ids);
    expect([...seen.values()].every((n) => n === 1)).toBe(true);
    expect(maxInFlight).toBeGreaterThan(1);
    await until("the log to be confirmed", async () => (await pending(b.token)) === 0);

    // stop() resolves once the runner's in-flight handlers are done: nothing runs after it.
    await handle.stop();
    expect(handle.isRunning()).toBe(false);
    expect(seen.size).toBe(ids.length);
    expect(await pending(b.token)).toBe(0);
  });
});
