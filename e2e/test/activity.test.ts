import { randomBytes } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import { Bot, webhookCallback } from "grammy";
import { Starpost } from "@starpost/client";
import { ACTIVITY_SIZE } from "@starpost/shared";
import { onCleanup, serve, useE2E } from "./support.ts";

// The activity log through @starpost/client: fences, waitFor and assertNone around a grammY shop
// served by webhook, and the log's own rules (order, kinds, bound, held reads).

const e2e = useE2E();
let sp: Starpost;
beforeAll(() => {
  sp = new Starpost({ url: e2e.apiRoot, platformToken: e2e.platform.token });
});

const PERIOD = 2_592_000;

/** A grammY shop served by webhook: /buy sends an invoice, /club a subscription link; refunds on /refund. */
async function webhookShop() {
  const shop = await sp.createBot({ tag: "activity" });
  onCleanup(() => shop.delete());
  const bot = new Bot(shop.token, { client: { apiRoot: e2e.apiRoot } });
  let charge = "";
  bot.command("buy", (ctx) => ctx.replyWithInvoice("Pack", "A pack", "pack", "XTR", [{ label: "Pack", amount: 7 }]));
  bot.command("club", async (ctx) => {
    const link = await ctx.api.createInvoiceLink(
      "Club",
      "Monthly",
      "club",
      "",
      "XTR",
      [{ label: "Month", amount: 3 }],
      {
        subscription_period: PERIOD,
      },
    );
    await ctx.reply(link);
  });
  bot.on("pre_checkout_query", (ctx) => ctx.answerPreCheckoutQuery(true));
  bot.on("message:successful_payment", async (ctx) => {
    charge = ctx.message.successful_payment.telegram_payment_charge_id;
    await ctx.reply("Thanks");
  });
  bot.command("refund", async (ctx) => {
    await ctx.api.refundStarPayment(ctx.from!.id, charge);
    await ctx.reply("Refunded");
  });
  // The secret keeps out another test's bot that still retries at a port this server reuses.
  const secret = randomBytes(16).toString("hex");
  const server = await serve(e2e, webhookCallback(bot, "http", { secretToken: secret }));
  onCleanup(() => server.close());
  await bot.api.setWebhook(server.url("/hook"), { secret_token: secret });
  return { shop, chat: await shop.privateChat({ first_name: "Ann" }) };
}

describe("the activity log", () => {
  it("fences a webhook bot's work: the update, its attempt and confirmation, the calls, the payment, the refund, the renewal", async () => {
    const { shop, chat } = await webhookShop();
    const start = await shop.fence();
    const sent = await chat.send("/buy");
    const update = await shop.waitFor({ kind: "update", type: "message" }, { after: start });
    expect(update).toMatchObject({ update: { message: { message_id: sent.message_id, text: "/buy" } } });
    const attempt = await shop.waitFor({ kind: "attempt", update_ids: [update.update_id] }, { after: start });
    expect(attempt).toMatchObject({ status: 200 });
    expect(attempt.duration_ms).toBeGreaterThanOrEqual(0);
    const confirm = await shop.waitFor({ kind: "confirm", by: "webhook" }, { after: start });
    expect(confirm.update_ids).toEqual([update.update_id]);
    await shop.waitFor({ kind: "call", method: "sendInvoice", status: 200 }, { after: start });
    const positions = [update, attempt, confirm].map((e) => e.position);
    expect([...positions].sort((a, b) => a - b)).toEqual(positions);

    const invoice = await chat.nextBotMessage();
    const beforePay = await shop.fence();
    const paid = await chat.pay(invoice);
    const payment = await shop.waitFor({ kind: "payment" }, { after: beforePay });
    expect(payment).toMatchObject({ status: "paid", user_id: chat.id, amount: 7, invoice_payload: "pack" });
    expect(paid.status === "paid" && payment.telegram_payment_charge_id).toBe(
      paid.status === "paid" ? paid.telegram_payment_charge_id : "",
    );
    expect((await chat.nextBotMessage()).text).toBe("Thanks");
    expect(await chat.paidInvoices()).toEqual({ [invoice.message_id]: 1 });
    await shop.assertNone({ kind: "payment" }, { after: payment.position });
    await expect(shop.assertNone({ kind: "payment" }, { after: beforePay })).rejects.toThrow(
      /1 activity entry matched between .*\n.*"kind":"payment"/,
    );

    await chat.send("/refund");
    expect(await shop.waitFor({ kind: "refund" }, { after: payment.position })).toMatchObject({
      telegram_payment_charge_id: payment.telegram_payment_charge_id,
      user_id: chat.id,
      amount: 7,
    });

    expect((await chat.nextBotMessage()).text).toBe("Refunded");
    await chat.send("/club");
    const link = (await chat.nextBotMessage({ timeoutMs: 15_000 })).text!;
    expect((await chat.payLink(link)).status).toBe("paid");
    const beforeClock = await shop.fence();
    expect(await shop.advanceClock(PERIOD)).toMatchObject({ renewals: 1 });
    expect(await shop.subscriptions()).toMatchObject([
      { user_id: chat.id, amount: 3, period: PERIOD, state: "active", renewals: 1, canceled: false },
    ]);
    expect(await shop.waitFor({ kind: "renewal" }, { after: beforeClock })).toMatchObject({
      status: "renewed",
      user_id: chat.id,
      amount: 3,
    });
  });

  it("records a failed attempt with its status and error, and drops nothing it has not given up", async () => {
    const shop = await sp.createBot({ tag: "activity" });
    onCleanup(() => shop.delete());
    const server = await serve(e2e, (_req, res) => res.writeHead(500).end());
    onCleanup(() => server.close());
    await e2e.call(shop.token, "setWebhook", { url: server.url("/hook") });
    const start = await shop.fence();
    const chat = await shop.privateChat({ first_name: "Bo" });
    await chat.send("hello");
    expect(await shop.waitFor({ kind: "attempt" }, { after: start })).toMatchObject({
      status: 500,
      error: "Wrong response from the webhook: 500 Internal Server Error",
    });
    await shop.assertNone({ kind: "confirm" }, { after: start });
    await shop.assertNone({ kind: "drop" }, { after: start });
  });

  it("confirmations by offset, kinds, limits and positions; a held read answers when an entry comes", async () => {
    const shop = await sp.createBot({ tag: "activity" });
    onCleanup(() => shop.delete());
    const chat = await shop.privateChat({ first_name: "Cy" });
    for (const text of ["one", "two", "three"]) await chat.send(text);
    const updates = await e2e.call(shop.token, "getUpdates", {});
    await e2e.call(shop.token, "getUpdates", { offset: updates[2].update_id + 1 });
    const { entries } = await shop.activity({ kinds: ["update", "confirm"] });
    expect(entries.map((e) => e.kind)).toEqual(["update", "update", "update", "confirm"]);
    expect(entries[3]).toMatchObject({ by: "offset", offset: updates[2].update_id + 1, count: 3 });
    const calls = (await shop.activity({ kinds: ["call"] })).entries;
    expect(calls.map((e) => [e.method, e.status])).toEqual([
      ["getUpdates", 200],
      ["getUpdates", 200],
    ]);
    const firstTwo = await shop.activity({ limit: 2 });
    expect(firstTwo.entries).toHaveLength(2);
    expect(firstTwo.position).toBe(firstTwo.entries[1]!.position);
    expect((await shop.activity({ after: firstTwo.position })).entries[0]).toEqual(
      (await shop.activity({ limit: 3 })).entries[2],
    );

    const fence = await shop.fence();
    const held = shop.activity({ after: fence, kinds: ["update"], waitMs: 10_000 });
    const pushed = await shop.pushUpdate({ message: { message_id: 9, date: 1, chat: chat.chat, text: "late" } });
    expect((await held).entries.map((e) => e.update_id)).toEqual([pushed.update_id]);
    const started = Date.now();
    expect((await shop.activity({ after: await shop.fence(), waitMs: 300 })).entries).toEqual([]);
    expect(Date.now() - started).toBeGreaterThanOrEqual(250);

    for (const [query, description] of [
      ["after=abc", "Bad Request: after must be an integer 0-9007199254740991"],
      [
        "kinds=call,nope",
        "Bad Request: kinds must be a comma-separated list of: call, update, attempt, confirm, drop, payment, refund, renewal, replay",
      ],
      ["wait_ms=30001", "Bad Request: wait_ms must be an integer 0-30000"],
    ] as const)
      expect(await e2e.platform.call("GET", `/bots/${shop.id}/activity?${query}`)).toMatchObject({
        status: 400,
        body: { ok: false, description },
      });
  });

  it(`keeps the newest ${ACTIVITY_SIZE} entries of a bot`, async () => {
    const shop = await sp.createBot({ tag: "activity" });
    onCleanup(() => shop.delete());
    const chat = { id: 5, type: "private" as const, first_name: "Di" };
    const update = (i: number) => ({ message: { message_id: i + 1, date: 1, chat, text: `m${i}` } });
    await shop.pushUpdate(update(0));
    const fence = await shop.fence();
    const total = ACTIVITY_SIZE + 50;
    for (let from = 0; from < total; from += 350) {
      const batch = Array.from({ length: Math.min(350, total - from) }, (_, i) => update(from + i + 1));
      await shop.pushUpdates(batch);
    }
    const { entries } = await shop.activity({ limit: ACTIVITY_SIZE });
    expect(entries).toHaveLength(ACTIVITY_SIZE);
    expect(entries.map((e) => e.update_id)).toEqual(Array.from({ length: ACTIVITY_SIZE }, (_, i) => i + 52));
    // A fence whose next entries were trimmed away proves nothing, and says so.
    expect(await shop.activity({ after: fence, limit: 1 })).toMatchObject({ trimmed: true });
    expect((await shop.activity({ after: entries[0]!.position, limit: 1 })).trimmed).toBe(false);
    await expect(shop.assertNone({ kind: "payment" }, { after: fence })).rejects.toThrow(
      /no longer holds every entry after/,
    );
  });
});

describe("replayed and duplicated deliveries", () => {
  it("replays a confirmed update to the next getUpdates once, the same update_id and body; refuses one still pending or unknown", async () => {
    const shop = await sp.createBot({ tag: "activity" });
    onCleanup(() => shop.delete());
    const chat = await shop.privateChat({ first_name: "Ed" });
    await chat.send("first");
    const [first] = await e2e.call(shop.token, "getUpdates", {});
    await chat.send("second");
    expect(
      await e2e.platform.call("POST", `/bots/${shop.id}/replays`, { update_id: first.update_id + 1 }),
    ).toMatchObject({
      status: 400,
      body: {
        description: `Bad Request: update ${first.update_id + 1} is not confirmed yet: it is still waiting for delivery`,
      },
    });
    const [, second] = await e2e.call(shop.token, "getUpdates", { offset: first.update_id });
    await e2e.call(shop.token, "getUpdates", { offset: second.update_id + 1 });

    const fence = await shop.fence();
    await shop.replay(first.update_id);
    await chat.send("third");
    // The replay comes alone (a client's next offset, from its update_id, confirms nothing), then the rest.
    expect(await e2e.call(shop.token, "getUpdates", { offset: second.update_id + 1 })).toEqual([first]);
    const [third] = await e2e.call(shop.token, "getUpdates", { offset: first.update_id + 1 });
    expect(third.message.text).toBe("third");
    expect(await e2e.call(shop.token, "getUpdates", { offset: third.update_id + 1 })).toEqual([]);
    expect(await shop.waitFor({ kind: "replay" }, { after: fence })).toMatchObject({
      update_id: first.update_id,
      reason: "platform",
    });
    expect(await e2e.platform.call("POST", `/bots/${shop.id}/replays`, { update_id: 999 })).toMatchObject({
      status: 400,
      body: {
        description: "Bad Request: update 999 is not in the bot's activity log (it keeps the newest 1000 entries)",
      },
    });
  });

  it("a replayed successful_payment reaches the webhook bot again, and no second payment happens", async () => {
    const { shop, chat } = await webhookShop();
    await chat.send("/buy");
    const invoice = await chat.nextBotMessage();
    await chat.pay(invoice);
    expect((await chat.nextBotMessage()).text).toBe("Thanks");
    const paid = await shop.waitFor({
      kind: "update",
      type: "message",
      update: { message: { successful_payment: {} } },
    });
    await shop.waitFor({ kind: "confirm", by: "webhook", update_ids: [paid.update_id] });

    const fence = await shop.fence();
    await shop.replay(paid.update_id as number);
    const replay = await shop.waitFor({ kind: "replay" }, { after: fence });
    await shop.waitFor({ kind: "confirm", by: "webhook", update_ids: [replay.slot] }, { after: fence });
    expect((await chat.nextBotMessage()).text).toBe("Thanks"); // the bot under test is not idempotent
    await shop.assertNone({ kind: "payment" }, { after: fence });
  });

  it("a duplicate-delivery fault makes the next deliveries come twice, by webhook and by getUpdates", async () => {
    const hooked = await sp.createBot({ tag: "activity" });
    onCleanup(() => hooked.delete());
    const seen: number[] = [];
    const server = await serve(e2e, (req, res) => {
      let body = "";
      req.on("data", (c: Buffer) => (body += c));
      req.on("end", () => {
        // Only this bot's updates count: the port may have served another test's server before,
        // whose bot still retries there.
        const update = JSON.parse(body) as { update_id: number; message?: { chat: { first_name?: string } } };
        if (update.message?.chat.first_name === "Fy") seen.push(update.update_id);
        res.writeHead(200).end();
      });
    });
    onCleanup(() => server.close());
    await e2e.call(hooked.token, "setWebhook", { url: server.url("/hook") });
    await hooked.duplicateDeliveries(1);
    expect(await hooked.faults()).toEqual([{ id: 1, method: "delivery", duplicate: true, times: 1 }]);
    const chat = await hooked.privateChat({ first_name: "Fy" });
    await chat.send("a");
    await hooked.waitFor({ kind: "replay", reason: "duplicate" });
    await chat.send("b");
    await hooked.waitFor((e) => e.kind === "confirm" && seen.length >= 3);
    // "a" came twice; the duplicate took a slot of the log, so "b" is update 3.
    expect(seen).toEqual([1, 1, 3]);
    expect(await hooked.faults()).toEqual([]);

    const polled = await sp.createBot({ tag: "activity" });
    onCleanup(() => polled.delete());
    await polled.duplicateDeliveries(2);
    const other = await polled.privateChat({ first_name: "Gu" });
    for (const text of ["x", "y", "z"]) await other.send(text);
    const got = await e2e.call(polled.token, "getUpdates", {});
    expect(got.map((u: { update_id: number }) => u.update_id)).toEqual([1, 2, 3]);
    // Each replay comes alone; the bot's next offset (the last update_id + 1, as clients take it)
    // confirms nothing and leaves nothing behind.
    expect(await e2e.call(polled.token, "getUpdates", { offset: 4 })).toEqual([got[0]]);
    expect(await e2e.call(polled.token, "getUpdates", { offset: 2 })).toEqual([got[1]]);
    expect(await e2e.call(polled.token, "getUpdates", { offset: 3 })).toEqual([]);
  });
});
