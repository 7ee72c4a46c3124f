import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { keys } from "@starpost/shared";
import { botClient, startStack, type TestStack } from "@starpost/testkit";
import { allUpdates, waitForUpdate } from "./helpers.ts";

let stack: TestStack;

beforeAll(async () => {
  stack = await startStack();
});
afterAll(() => stack.close());

const PERIOD = 2_592_000;
const user = (id: number) => ({ id, first_name: `U${id}` });

/** A fresh bot, its links, and the platform's side: paying a link (answered ok by the bot), the clock, users' Stars. */
async function shop() {
  const bot = await stack.platform.createBot({ first_name: "Club" });
  const call = botClient(stack.gatewayUrl, bot.token);
  const createLink = async (amount: number, subscription = true, payload = `club-${amount}`) => {
    const r = await call("createInvoiceLink", {
      title: "Club",
      description: "Monthly club",
      payload,
      currency: "XTR",
      prices: [{ label: "Month", amount }],
      ...(subscription ? { subscription_period: PERIOD } : {}),
    });
    expect(r.status).toBe(200);
    return r.body.result as string;
  };
  const payRaw = (link: string, userId: number) =>
    stack.platform.call("POST", `/bots/${bot.id}/invoice_links/pay`, { link, user: user(userId) });
  /** Pays and approves; returns the platform's answer. */
  const payLink = async (link: string, userId: number) => {
    const seen = new Set((await allUpdates(stack, bot.id)).map((u) => u.pre_checkout_query?.id));
    const paying = payRaw(link, userId);
    const q = await waitForUpdate(
      stack,
      bot.id,
      (u) => u.pre_checkout_query?.from.id === userId && !seen.has(u.pre_checkout_query.id),
    );
    expect(
      (await call("answerPreCheckoutQuery", { pre_checkout_query_id: q.pre_checkout_query.id, ok: true })).body.result,
    ).toBe(true);
    return (await paying).body;
  };
  const advance = async (seconds: number) => {
    const r = await stack.platform.call("POST", `/bots/${bot.id}/clock`, { advance_seconds: seconds });
    expect(r.status).toBe(200);
    return r.body.result as { date: number; renewals: number; ended: number };
  };
  const setStars = (userId: number, amount: number | null) =>
    stack.platform.call("PUT", `/bots/${bot.id}/users/${userId}/stars`, { amount });
  const payments = async () =>
    (await allUpdates(stack, bot.id)).filter((u) => u.message?.successful_payment).map((u) => u.message);
  const ledger = async () => (await call("getStarTransactions", {})).body.result.transactions as any[];
  const expectConsistent = async () => {
    const sum = (await ledger()).reduce((s, t) => s + (t.source ? t.amount : -t.amount), 0);
    expect((await call("getMyStarBalance")).body.result.amount).toBe(sum);
    return sum;
  };
  const edit = (userId: number, chargeId: string, canceled: boolean) =>
    call("editUserStarSubscription", { user_id: userId, telegram_payment_charge_id: chargeId, is_canceled: canceled });
  return { bot, call, createLink, payRaw, payLink, advance, setStars, payments, ledger, expectConsistent, edit };
}

describe("invoice links and subscriptions", () => {
  it("a plain link is paid by many users, each in their private chat, with the invoice message's lifecycle", async () => {
    const s = await shop();
    const link = await s.createLink(40, false, "sticker-pack");
    expect(link).toMatch(/^https:\/\/t\.me\/\$[A-Za-z0-9_-]{16}$/);
    const a = await s.payLink(link, 901);
    const b = await s.payLink(link, 902);
    const again = await s.payLink(link, 901);
    expect([a.result.status, b.result.status, again.result.status]).toEqual(["paid", "paid", "paid"]);
    const messages = await s.payments();
    expect(messages.map((m) => [m.chat.id, m.message_id])).toEqual([
      [901, 1],
      [902, 1],
      [901, 2],
    ]);
    expect(messages[0].chat).toEqual({ id: 901, first_name: "U901", type: "private" });
    expect(messages[0].successful_payment).toEqual({
      currency: "XTR",
      total_amount: 40,
      invoice_payload: "sticker-pack",
      telegram_payment_charge_id: a.result.telegram_payment_charge_id,
      provider_payment_charge_id: "",
    });
    expect(await s.expectConsistent()).toBe(120);
    expect((await s.ledger())[0].source).toEqual({
      type: "user",
      transaction_type: "invoice_payment",
      user: { id: 901, is_bot: false, first_name: "U901" },
      invoice_payload: "sticker-pack",
    });
  });

  it("rejects unknown links and bad platform input, changing nothing", async () => {
    const s = await shop();
    expect((await s.payRaw("https://t.me/$AAAAAAAAAAAAAAAA", 901)).body).toEqual({
      ok: false,
      error_code: 400,
      description: "Bad Request: invoice link not found",
    });
    expect((await s.payRaw("nonsense", 901)).body.description).toBe("Bad Request: invoice link not found");
    const clock = await stack.platform.call("POST", `/bots/${s.bot.id}/clock`, { advance_seconds: -1 });
    expect(clock.body).toEqual({
      ok: false,
      error_code: 400,
      description: "Bad Request: advance_seconds must be an integer 0-315360000",
    });
    expect((await s.setStars(901, -5)).body.description).toBe(
      "Bad Request: amount must be an integer 0-1000000000000 or null",
    );
    expect((await stack.platform.call("POST", `/bots/99999999/clock`, { advance_seconds: 1 })).status).toBe(404);
    expect(await allUpdates(stack, s.bot.id)).toEqual([]);
  });

  it("subscription: first payment, three renewals in order, one subscription per subscriber, balance == ledger", async () => {
    const s = await shop();
    const link = await s.createLink(100);
    const first = await s.payLink(link, 901);
    expect(first.result.status).toBe("paid");
    const firstId = first.result.telegram_payment_charge_id;
    const [start] = await s.payments();
    expect(start.successful_payment).toEqual({
      currency: "XTR",
      total_amount: 100,
      invoice_payload: "club-100",
      subscription_expiration_date: start.date + PERIOD,
      is_recurring: true,
      is_first_recurring: true,
      telegram_payment_charge_id: firstId,
      provider_payment_charge_id: "",
    });
    // JsonSuccessfulPaymentBot's order (Client.cpp at 01a3679, line 3038): the recurring fields last.
    expect(Object.keys(start.successful_payment).slice(-3)).toEqual([
      "is_recurring",
      "is_first_recurring",
      "subscription_expiration_date",
    ]);
    // The same subscriber cannot subscribe twice from one link; the pre_checkout_query is not sent.
    expect((await s.payRaw(link, 901)).body.description).toBe(
      "Bad Request: the user already has a subscription from this link",
    );

    const early = await s.advance(PERIOD - 600);
    expect(early).toMatchObject({ renewals: 0, ended: 0 });
    expect(early.date).toBeGreaterThanOrEqual(start.date + PERIOD - 600);
    expect(early.date).toBeLessThan(start.date + PERIOD);
    expect(await s.advance(3 * PERIOD)).toMatchObject({ renewals: 3, ended: 0 });
    const messages = await s.payments();
    expect(messages).toHaveLength(4);
    const renewals = messages.slice(1);
    renewals.forEach((m, i) => {
      expect(m.chat.id).toBe(901);
      expect(m.message_id).toBe(i + 2);
      expect(m.date).toBe(start.date + (i + 1) * PERIOD);
      expect(Object.keys(m.successful_payment)).toEqual([
        "currency",
        "total_amount",
        "invoice_payload",
        "telegram_payment_charge_id",
        "provider_payment_charge_id",
        "is_recurring",
        "subscription_expiration_date",
      ]);
      expect(m.successful_payment).toMatchObject({
        total_amount: 100,
        is_recurring: true,
        subscription_expiration_date: start.date + (i + 2) * PERIOD,
      });
      expect(m.successful_payment.is_first_recurring).toBeUndefined();
      expect(m.successful_payment.telegram_payment_charge_id).not.toBe(firstId);
    });
    const ledger = await s.ledger();
    expect(ledger.map((t) => t.id)).toEqual(messages.map((m) => m.successful_payment.telegram_payment_charge_id));
    expect(ledger.map((t) => t.date)).toEqual(messages.map((m) => m.date));
    for (const t of ledger)
      expect(t.source).toMatchObject({
        type: "user",
        transaction_type: "invoice_payment",
        invoice_payload: "club-100",
        subscription_period: PERIOD,
      });
    expect(await s.expectConsistent()).toBe(400);
  });

  it("cancel stops the next renewal, re-enable before expiry restores it; ended subscriptions refuse edits", async () => {
    const s = await shop();
    const link = await s.createLink(10);
    const id = (await s.payLink(link, 901)).result.telegram_payment_charge_id;
    expect((await s.edit(901, id, true)).body).toEqual({ ok: true, result: true });
    expect((await s.edit(901, id, false)).body).toEqual({ ok: true, result: true });
    expect(await s.advance(PERIOD)).toMatchObject({ renewals: 1, ended: 0 });
    expect((await s.edit(901, id, true)).body.result).toBe(true);
    expect(await s.advance(PERIOD)).toMatchObject({ renewals: 0, ended: 1 });
    expect(await s.advance(5 * PERIOD)).toMatchObject({ renewals: 0, ended: 0 });
    expect(await s.payments()).toHaveLength(2);
    expect((await s.edit(901, id, false)).body).toEqual({
      ok: false,
      error_code: 400,
      description: "Bad Request: SUBSCRIPTION_EXPIRED",
    });
    // Ended, the user may subscribe again.
    expect((await s.payLink(link, 901)).result.status).toBe("paid");
    expect(await s.expectConsistent()).toBe(30);
  });

  it("editUserStarSubscription answers the reference's errors", async () => {
    const s = await shop();
    const link = await s.createLink(10);
    const plain = await s.createLink(10, false);
    const id = (await s.payLink(link, 901)).result.telegram_payment_charge_id;
    const plainId = (await s.payLink(plain, 902)).result.telegram_payment_charge_id;
    const refused = async (userId: number, chargeId: string) => (await s.edit(userId, chargeId, true)).body.description;
    expect(await refused(777, id)).toBe("Bad Request: user not found");
    expect(await refused(902, id)).toBe("Bad Request: CHARGE_NOT_FOUND");
    expect(await refused(901, "stxspnothing")).toBe("Bad Request: CHARGE_NOT_FOUND");
    expect(await refused(902, plainId)).toBe("Bad Request: CHARGE_NOT_FOUND");
    expect((await s.call("editUserStarSubscription", { user_id: 901 })).body.description).toBe(
      'Bad Request: parameter "telegram_payment_charge_id" is required',
    );
    expect(
      (await s.call("editUserStarSubscription", { user_id: "x", telegram_payment_charge_id: id })).body.description,
    ).toBe("Bad Request: invalid user_id specified");
    // Nothing changed: the subscription still renews.
    expect(await s.advance(PERIOD)).toMatchObject({ renewals: 1 });
  });

  it("users' Stars: payments debit, a renewal the user cannot afford ends the subscription, refunds credit back once", async () => {
    const s = await shop();
    const link = await s.createLink(100);
    expect((await s.setStars(901, 250)).body).toEqual({ ok: true, result: { amount: 250 } });
    const id = (await s.payLink(link, 901)).result.telegram_payment_charge_id;
    expect(await s.advance(PERIOD)).toMatchObject({ renewals: 1, ended: 0 });
    // 50 Stars left: the second renewal fails and the subscription ends at its expiration.
    expect(await s.advance(PERIOD)).toMatchObject({ renewals: 0, ended: 1 });
    const messages = await s.payments();
    expect(messages).toHaveLength(2);
    const renewalId = messages[1].successful_payment.telegram_payment_charge_id;
    expect((await s.call("refundStarPayment", { user_id: 901, telegram_payment_charge_id: renewalId })).body).toEqual({
      ok: true,
      result: true,
    });
    expect(
      (await s.call("refundStarPayment", { user_id: 901, telegram_payment_charge_id: renewalId })).body.description,
    ).toBe("Bad Request: CHARGE_ALREADY_REFUNDED");
    const refunded = (await allUpdates(stack, s.bot.id)).filter((u) => u.message?.refunded_payment);
    expect(refunded.map((u) => u.message.refunded_payment)).toEqual([
      { currency: "XTR", total_amount: 100, invoice_payload: "club-100", telegram_payment_charge_id: renewalId },
    ]);
    const ledger = await s.ledger();
    expect(ledger.map((t) => [t.id, t.source ? "in" : "out"])).toEqual([
      [id, "in"],
      [renewalId, "in"],
      [renewalId, "out"],
    ]);
    expect(ledger[2].receiver).toMatchObject({ subscription_period: PERIOD });
    expect(await s.expectConsistent()).toBe(100);
    // 150 Stars back in hand: a new subscription is affordable; 0 Stars is not.
    expect((await s.payLink(link, 901)).result.status).toBe("paid");
    await s.setStars(902, 0);
    expect((await s.payRaw(link, 902)).body.description).toBe("Bad Request: the user does not have enough Stars");
    await s.setStars(902, null);
    expect((await s.payLink(link, 902)).result.status).toBe("paid");
  });

  it("a repeated subscription payment with its idempotency_key answers the first outcome, not a refusal", async () => {
    const s = await shop();
    const link = await s.createLink(20);
    const body = { link, user: user(903), idempotency_key: "order-1" };
    const paying = stack.platform.call("POST", `/bots/${s.bot.id}/invoice_links/pay`, body);
    const q = await waitForUpdate(stack, s.bot.id, (u) => u.pre_checkout_query);
    await s.call("answerPreCheckoutQuery", { pre_checkout_query_id: q.pre_checkout_query.id, ok: true });
    const first = (await paying).body.result;
    expect(first.status).toBe("paid");
    expect((await stack.platform.call("POST", `/bots/${s.bot.id}/invoice_links/pay`, body)).body.result).toEqual(first);
    const other = await stack.platform.call("POST", `/bots/${s.bot.id}/invoice_links/pay`, {
      ...body,
      user: user(904),
    });
    expect(other.body.description).toBe("Bad Request: idempotency_key was already used for another payment");
    expect((await allUpdates(stack, s.bot.id)).filter((u) => u.pre_checkout_query)).toHaveLength(1);
    expect(await s.payments()).toHaveLength(1);
  });

  it("an approved payment the user can no longer afford fails with no charge and no message", async () => {
    const s = await shop();
    const link = await s.createLink(50, false);
    await s.setStars(906, 100);
    const paying = s.payRaw(link, 906);
    const q = await waitForUpdate(stack, s.bot.id, (u) => u.pre_checkout_query);
    await s.setStars(906, 10);
    expect(
      (await s.call("answerPreCheckoutQuery", { pre_checkout_query_id: q.pre_checkout_query.id, ok: true })).body
        .result,
    ).toBe(true);
    expect((await paying).body.result).toEqual({
      status: "failed",
      error_message: "the user does not have enough Stars",
    });
    expect(await s.payments()).toEqual([]);
    expect(await s.ledger()).toEqual([]);
    expect(await s.expectConsistent()).toBe(0);
    await s.setStars(906, 50);
    expect((await s.payLink(link, 906)).result.status).toBe("paid");
    expect((await s.payRaw(link, 906)).body.description).toBe("Bad Request: the user does not have enough Stars");
  });

  it("each bot has its own clock", async () => {
    const a = await shop();
    const b = await shop();
    await a.payLink(await a.createLink(5), 901);
    await b.payLink(await b.createLink(5), 901);
    expect(await a.advance(PERIOD)).toMatchObject({ renewals: 1 });
    expect(await b.advance(0)).toMatchObject({ renewals: 0 });
    expect(await b.payments()).toHaveLength(1);
  });
});

describe("a pre-checkout query recorded before subscriptions", () => {
  it("is answered from the fields it was stored with", async () => {
    const s = await shop();
    const link = await s.createLink(30, false, "old-query");
    const paying = s.payRaw(link, 905);
    const q = (await waitForUpdate(stack, s.bot.id, (u) => u.pre_checkout_query)).pre_checkout_query;
    // The layout of the query hash before subscriptions: the charge, the ledger entry and the
    // payment ready-made, no parts.
    const key = keys.preCheckout(s.bot.id, q.id);
    const [chargeId, paidHead, partner, user, chat, chatId, queue] = await stack.redis.hmget(
      key,
      "charge_id",
      "paid_head",
      "partner",
      "user",
      "chat",
      "chat_id",
      "queue",
    );
    const charge = {
      id: chargeId,
      status: "paid",
      user_id: "905",
      chat_id: chatId,
      amount: "30",
      payload: "old-query",
      queue,
      from_json: user,
      chat_json: chat,
      partner,
      refunded_payment: `${paidHead},"telegram_payment_charge_id":"${chargeId}"}`,
    };
    await stack.redis.hdel(key, "partner", "paid_head", "user_id", "period", "link", "payload");
    await stack.redis.hset(
      key,
      "charge",
      JSON.stringify(charge),
      "txn",
      `{"id":"${chargeId}","amount":30,"date":1,"source":${partner}}`,
      "paid",
      `${paidHead},"telegram_payment_charge_id":"${chargeId}","provider_payment_charge_id":""}`,
    );
    expect((await s.call("answerPreCheckoutQuery", { pre_checkout_query_id: q.id, ok: true })).body.result).toBe(true);
    expect((await paying).body.result).toEqual({ status: "paid", telegram_payment_charge_id: chargeId });
    const [message] = await s.payments();
    expect(message.successful_payment).toEqual({
      currency: "XTR",
      total_amount: 30,
      invoice_payload: "old-query",
      telegram_payment_charge_id: chargeId,
      provider_payment_charge_id: "",
    });
    expect((await s.ledger())[0]).toMatchObject({
      id: chargeId,
      amount: 30,
      source: { user: { id: 905 }, invoice_payload: "old-query" },
    });
    expect(await s.expectConsistent()).toBe(30);
  });
});
