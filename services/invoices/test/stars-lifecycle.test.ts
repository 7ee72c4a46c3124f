import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { keys } from "@starpost/shared";
import { botClient, startStack, type TestStack } from "@starpost/testkit";
import { allUpdates, waitForUpdate } from "./helpers.ts";

let stack: TestStack;

beforeAll(async () => {
  stack = await startStack();
});
afterAll(() => stack.close());

const product = { title: "Gold", description: "A bag of gold", currency: "XTR" };

/** A fresh bot with one private chat per user id given, and helpers for its side of the story. */
async function shop(userIds: number[] = [501]) {
  const bot = await stack.platform.createBot({ first_name: "Shop" });
  for (const id of userIds) await stack.platform.putChat(bot.id, { id, type: "private", first_name: `U${id}` });
  const call = botClient(stack.gatewayUrl, bot.token);
  const sendInvoice = async (chatId: number, amount: number, payload = `order-${chatId}-${amount}`) => {
    const r = await call("sendInvoice", { ...product, chat_id: chatId, payload, prices: [{ label: "Gold", amount }] });
    expect(r.status).toBe(200);
    return r.body.result.message_id as number;
  };
  const pay = (chatId: number, messageId: number, userId = chatId) =>
    stack.platform.call("POST", `/bots/${bot.id}/payments`, {
      chat_id: chatId,
      message_id: messageId,
      user: { id: userId, first_name: `U${userId}`, username: `u${userId}` },
    });
  const preCheckout = (userId: number) =>
    waitForUpdate(stack, bot.id, (u) => u.pre_checkout_query?.from.id === userId).then((u) => u.pre_checkout_query);
  const ledger = async () => {
    const r = await call("getStarTransactions", { limit: 100 });
    return r.body.result.transactions as any[];
  };
  const balance = async () => (await call("getMyStarBalance")).body.result.amount as number;
  /** The bot's balance must equal the ledger: incoming (source) minus outgoing (receiver). */
  const expectConsistent = async () => {
    const txns = await ledger();
    const sum = txns.reduce((s, t) => s + (t.source ? t.amount : -t.amount), 0);
    expect(await balance()).toBe(sum);
    return sum;
  };
  return { bot, call, sendInvoice, pay, preCheckout, ledger, balance, expectConsistent };
}

describe("the Stars lifecycle", () => {
  it("paid: pre_checkout_query, ok answer, credit, ledger entry and successful_payment", async () => {
    const s = await shop();
    const msg = await s.sendInvoice(501, 250, "order-paid");
    const paying = s.pay(501, msg);
    const q = await s.preCheckout(501);
    expect(Object.keys(q)).toEqual(["id", "from", "currency", "total_amount", "invoice_payload"]);
    expect(q).toMatchObject({
      from: { id: 501, is_bot: false, first_name: "U501", username: "u501" },
      currency: "XTR",
      total_amount: 250,
      invoice_payload: "order-paid",
    });
    expect(q.id).toMatch(/^\d+$/);

    expect((await s.call("answerPreCheckoutQuery", { pre_checkout_query_id: q.id, ok: true })).body).toEqual({
      ok: true,
      result: true,
    });
    const paid = await paying;
    expect(paid.status).toBe(200);
    expect(Object.keys(paid.body.result)).toEqual(["status", "telegram_payment_charge_id"]);
    expect(paid.body.result.status).toBe("paid");
    const chargeId = paid.body.result.telegram_payment_charge_id;

    // The message is in the log by the time the payer hears "paid".
    const updates = await allUpdates(stack, s.bot.id);
    const message = updates.find((u) => u.message?.successful_payment)!.message;
    expect(message.message_id).toBe(msg + 1);
    expect(message.from).toEqual({ id: 501, is_bot: false, first_name: "U501", username: "u501" });
    expect(message.chat).toEqual({ id: 501, first_name: "U501", type: "private" });
    expect(message.successful_payment).toEqual({
      currency: "XTR",
      total_amount: 250,
      invoice_payload: "order-paid",
      telegram_payment_charge_id: chargeId,
      provider_payment_charge_id: "",
    });

    expect(await s.balance()).toBe(250);
    const txns = await s.ledger();
    expect(txns).toHaveLength(1);
    expect(txns[0]).toMatchObject({
      id: chargeId,
      amount: 250,
      source: { type: "user", transaction_type: "invoice_payment", user: { id: 501 }, invoice_payload: "order-paid" },
    });
    await s.expectConsistent();
  });

  it("declined: the bot's error message reaches the payer and no money moves", async () => {
    const s = await shop();
    const msg = await s.sendInvoice(501, 40);
    const paying = s.pay(501, msg);
    const q = await s.preCheckout(501);
    const noReason = await s.call("answerPreCheckoutQuery", { pre_checkout_query_id: q.id, ok: false });
    expect(noReason.body).toEqual({
      ok: false,
      error_code: 400,
      description: 'Bad Request: parameter "error_message" is required',
    });
    expect(
      (await s.call("answerPreCheckoutQuery", { pre_checkout_query_id: q.id, ok: false, error_message: "Sold out" }))
        .body.result,
    ).toBe(true);
    expect((await paying).body).toEqual({ ok: true, result: { status: "declined", error_message: "Sold out" } });
    expect(await s.balance()).toBe(0);
    expect(await s.ledger()).toEqual([]);
    expect((await allUpdates(stack, s.bot.id)).some((u) => u.message?.successful_payment)).toBe(false);
  });

  it("a pre-checkout query can be answered once; unknown ids are refused", async () => {
    const s = await shop();
    const msg = await s.sendInvoice(501, 30);
    const paying = s.pay(501, msg);
    const q = await s.preCheckout(501);
    const invalid = {
      ok: false,
      error_code: 400,
      description: "Bad Request: query is too old and response timeout expired or query ID is invalid",
    };
    expect((await s.call("answerPreCheckoutQuery", { pre_checkout_query_id: q.id, ok: true })).body.result).toBe(true);
    expect((await s.call("answerPreCheckoutQuery", { pre_checkout_query_id: q.id, ok: true })).body).toEqual(invalid);
    expect(
      (await s.call("answerPreCheckoutQuery", { pre_checkout_query_id: q.id, ok: false, error_message: "no" })).body,
    ).toEqual(invalid);
    expect((await paying).body.result.status).toBe("paid");
    expect((await s.call("answerPreCheckoutQuery", { pre_checkout_query_id: "12345", ok: true })).body).toEqual(
      invalid,
    );
    expect((await s.call("answerPreCheckoutQuery", { pre_checkout_query_id: "not-an-id", ok: true })).body).toEqual(
      invalid,
    );
    // A missing id reads as 0 (to_integer<int64> of ""), which names no query.
    expect((await s.call("answerPreCheckoutQuery", { ok: true })).body).toEqual(invalid);
    // Another bot cannot answer this bot's query.
    const other = await shop();
    expect((await other.call("answerPreCheckoutQuery", { pre_checkout_query_id: q.id, ok: true })).body).toEqual(
      invalid,
    );
    expect(await s.balance()).toBe(30);
  });

  it("concurrent answers to one query credit it exactly once", async () => {
    const s = await shop();
    const msg = await s.sendInvoice(501, 70);
    const paying = s.pay(501, msg);
    const q = await s.preCheckout(501);
    const answers = await Promise.all(
      Array.from({ length: 20 }, () => s.call("answerPreCheckoutQuery", { pre_checkout_query_id: q.id, ok: true })),
    );
    expect(answers.filter((a) => a.body.ok === true)).toHaveLength(1);
    expect((await paying).body.result.status).toBe("paid");
    expect(await s.balance()).toBe(70);
    expect(await s.ledger()).toHaveLength(1);
    expect((await allUpdates(stack, s.bot.id)).filter((u) => u.message?.successful_payment)).toHaveLength(1);
  });

  it("expired: no answer within the real 10 s, and a late answer is refused", { timeout: 30_000 }, async () => {
    const s = await shop();
    const msg = await s.sendInvoice(501, 60);
    const started = Date.now();
    const paying = s.pay(501, msg);
    const q = await s.preCheckout(501);
    const expired = await paying;
    const waited = Date.now() - started;
    expect(expired.body).toEqual({ ok: true, result: { status: "expired" } });
    expect(waited).toBeGreaterThanOrEqual(9_900);
    expect((await s.call("answerPreCheckoutQuery", { pre_checkout_query_id: q.id, ok: true })).body).toEqual({
      ok: false,
      error_code: 400,
      description: "Bad Request: query is too old and response timeout expired or query ID is invalid",
    });
    expect(await s.balance()).toBe(0);
  });

  it("refunds once: debit, refunded_payment, then CHARGE_ALREADY_REFUNDED; unknown charges and users are refused", async () => {
    const s = await shop([501, 502]);
    const msg = await s.sendInvoice(501, 90, "order-refund");
    const paying = s.pay(501, msg);
    await s.call("answerPreCheckoutQuery", { pre_checkout_query_id: (await s.preCheckout(501)).id, ok: true });
    const chargeId = (await paying).body.result.telegram_payment_charge_id;
    // A second user pays too, so the other user is known to the bot.
    const paying2 = s.pay(502, await s.sendInvoice(502, 10));
    await s.call("answerPreCheckoutQuery", { pre_checkout_query_id: (await s.preCheckout(502)).id, ok: true });
    await paying2;
    expect(await s.balance()).toBe(100);

    const refund = (params: Record<string, unknown>) => s.call("refundStarPayment", params);
    const err = (text: string) => ({ ok: false, error_code: 400, description: `Bad Request: ${text}` });
    expect((await refund({ user_id: 501, telegram_payment_charge_id: "stxnothing" })).body).toEqual(
      err("CHARGE_NOT_FOUND"),
    );
    expect((await refund({ user_id: 502, telegram_payment_charge_id: chargeId })).body).toEqual(
      err("CHARGE_NOT_FOUND"),
    );
    expect((await refund({ user_id: 999999, telegram_payment_charge_id: chargeId })).body).toEqual(
      err("user not found"),
    );
    expect((await refund({ telegram_payment_charge_id: chargeId })).body).toEqual(err("invalid user_id specified"));
    expect((await refund({ user_id: "abc", telegram_payment_charge_id: chargeId })).body).toEqual(
      err("invalid user_id specified"),
    );
    expect((await refund({ user_id: 501 })).body).toEqual(err('parameter "telegram_payment_charge_id" is required'));

    expect((await refund({ user_id: 501, telegram_payment_charge_id: chargeId })).body).toEqual({
      ok: true,
      result: true,
    });
    expect((await refund({ user_id: "501", telegram_payment_charge_id: chargeId })).body).toEqual(
      err("CHARGE_ALREADY_REFUNDED"),
    );
    expect(await s.balance()).toBe(10);
    const txns = await s.ledger();
    expect(txns).toHaveLength(3);
    expect(txns[2]).toMatchObject({
      id: chargeId,
      amount: 90,
      receiver: {
        type: "user",
        transaction_type: "invoice_payment",
        user: { id: 501 },
        invoice_payload: "order-refund",
      },
    });
    const refunded = (await allUpdates(stack, s.bot.id)).find((u) => u.message?.refunded_payment)!.message;
    expect(refunded.chat.id).toBe(501);
    expect(refunded.refunded_payment).toEqual({
      currency: "XTR",
      total_amount: 90,
      invoice_payload: "order-refund",
      telegram_payment_charge_id: chargeId,
    });
    await s.expectConsistent();
  });

  it("concurrent refunds of one charge refund it exactly once", async () => {
    const s = await shop();
    const paying = s.pay(501, await s.sendInvoice(501, 55));
    await s.call("answerPreCheckoutQuery", { pre_checkout_query_id: (await s.preCheckout(501)).id, ok: true });
    const chargeId = (await paying).body.result.telegram_payment_charge_id;
    const refunds = await Promise.all(
      Array.from({ length: 20 }, () =>
        s.call("refundStarPayment", { user_id: 501, telegram_payment_charge_id: chargeId }),
      ),
    );
    expect(refunds.filter((r) => r.body.ok === true)).toHaveLength(1);
    expect(refunds.filter((r) => r.body.description === "Bad Request: CHARGE_ALREADY_REFUNDED")).toHaveLength(19);
    expect(await s.balance()).toBe(0);
    expect(await s.ledger()).toHaveLength(2);
    await s.expectConsistent();
  });

  it("50 concurrent payments and their refunds keep the balance equal to the ledger", async () => {
    const users = Array.from({ length: 50 }, (_, i) => 1000 + i);
    const s = await shop(users);
    const invoices = await Promise.all(users.map((u, i) => s.sendInvoice(u, i + 1)));
    const payments = users.map((u, i) => s.pay(u, invoices[i]!));
    const queries = await Promise.all(users.map((u) => s.preCheckout(u)));
    // Every fifth payer is declined; the others approved, all at once.
    const answers = await Promise.all(
      queries.map((q, i) =>
        s.call(
          "answerPreCheckoutQuery",
          i % 5 === 0
            ? { pre_checkout_query_id: q.id, ok: false, error_message: "no stock" }
            : { pre_checkout_query_id: q.id, ok: true },
        ),
      ),
    );
    expect(answers.every((a) => a.body.result === true)).toBe(true);
    const results = (await Promise.all(payments)).map((r) => r.body.result);
    const paid = results.filter((r) => r.status === "paid");
    expect(paid).toHaveLength(40);
    expect(results.filter((r) => r.status === "declined")).toHaveLength(10);
    expect(new Set(paid.map((r) => r.telegram_payment_charge_id)).size).toBe(40);
    const expected = users.reduce((sum, _u, i) => sum + (i % 5 === 0 ? 0 : i + 1), 0);
    expect(await s.expectConsistent()).toBe(expected);
    expect(await s.ledger()).toHaveLength(40);

    // Refund every paid charge twice, concurrently: each refunds once.
    const byCharge = new Map(results.map((r, i) => [r.telegram_payment_charge_id, users[i]!]));
    const refunds = await Promise.all(
      [...paid, ...paid].map((r) =>
        s.call("refundStarPayment", {
          user_id: byCharge.get(r.telegram_payment_charge_id),
          telegram_payment_charge_id: r.telegram_payment_charge_id,
        }),
      ),
    );
    expect(refunds.filter((r) => r.body.ok === true)).toHaveLength(40);
    expect(await s.expectConsistent()).toBe(0);
    expect(await s.ledger()).toHaveLength(80);
  });

  it("getStarTransactions pages oldest first with offset and a clamped limit", async () => {
    const s = await shop();
    for (const amount of [1, 2, 3]) {
      const paying = s.pay(501, await s.sendInvoice(501, amount));
      const q = await waitForUpdate(stack, s.bot.id, (u) => u.pre_checkout_query?.total_amount === amount);
      await s.call("answerPreCheckoutQuery", { pre_checkout_query_id: q.pre_checkout_query.id, ok: true });
      await paying;
    }
    const page = async (params: Record<string, unknown>) =>
      ((await s.call("getStarTransactions", params)).body.result.transactions as any[]).map((t) => t.amount);
    expect(await page({})).toEqual([1, 2, 3]);
    expect(await page({ offset: 1 })).toEqual([2, 3]);
    expect(await page({ offset: 1, limit: 1 })).toEqual([2]);
    expect(await page({ limit: 0 })).toEqual([1]);
    expect(await page({ offset: -5, limit: 500 })).toEqual([1, 2, 3]);
    expect(await page({ offset: 10 })).toEqual([]);
    expect((await s.call("getMyStarBalance")).body).toEqual({ ok: true, result: { amount: 6 } });
  });

  it("writes the invoice payload as the official server does, whatever it holds: slashes, quotes, a backslash, non-ASCII", async () => {
    const s = await shop();
    const payload = 'a/b "q" \\/ é 😀 </script>';
    const msg = await s.sendInvoice(501, 7, payload);
    const paying = s.pay(501, msg);
    const q = await s.preCheckout(501);
    expect(q.invoice_payload).toBe(payload);
    // The update as stored (and sent): the payload as JSON.stringify writes it, "/" not escaped.
    const stored = (await stack.redis.xrange(keys.updateLog(s.bot.id), "-", "+")).map(([, f]) => f.join(" ")).join();
    expect(stored).toContain(`"invoice_payload":${JSON.stringify(payload)}`);
    expect((await s.call("answerPreCheckoutQuery", { pre_checkout_query_id: q.id, ok: true })).body.result).toBe(true);
    expect((await paying).body.result.status).toBe("paid");
    const paid = await waitForUpdate(stack, s.bot.id, (u) => u.message?.successful_payment);
    expect(paid.message.successful_payment.invoice_payload).toBe(payload);
    expect((await s.ledger())[0].source.invoice_payload).toBe(payload);
  });

  it("refuses payments for unknown bots, chats and invoice messages", async () => {
    const s = await shop();
    const msg = await s.sendInvoice(501, 5);
    const err = (code: number, description: string) => ({ ok: false, error_code: code, description });
    expect((await s.pay(999, msg)).body).toEqual(err(400, "Bad Request: chat not found"));
    expect((await s.pay(501, msg + 100)).body).toEqual(err(400, "Bad Request: invoice message not found"));
    expect(
      (
        await stack.platform.call("POST", `/bots/123456/payments`, {
          chat_id: 501,
          message_id: msg,
          user: { id: 501, first_name: "A" },
        })
      ).body,
    ).toEqual(err(404, "Not Found: bot not found"));
    const missingUser = await stack.platform.call("POST", `/bots/${s.bot.id}/payments`, {
      chat_id: 501,
      message_id: msg,
    });
    expect(missingUser.status).toBe(400);
    expect(missingUser.body.ok).toBe(false);
  });

  it("a bot that does not accept pre_checkout_query gets an expired payment at once", async () => {
    const s = await shop();
    const msg = await s.sendInvoice(501, 5);
    // getUpdates stores allowed_updates inside its poll step.
    const polled = await botClient(stack.gatewayUrl, s.bot.token)("getUpdates", {
      timeout: 0,
      allowed_updates: ["message"],
    });
    expect(polled.body.ok).toBe(true);
    const started = Date.now();
    expect((await s.pay(501, msg)).body).toEqual({ ok: true, result: { status: "expired" } });
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it("refunds a charge recorded in the earlier format (user and chat as objects, no message parts)", async () => {
    const s = await shop();
    const botId = String(s.bot.id);
    const user = { id: 501, is_bot: false, first_name: "U501" };
    const chat = { id: 501, first_name: "U501", type: "private" };
    const charge = {
      id: "stxspold1",
      status: "paid",
      user_id: "501",
      chat_id: "501",
      amount: "12",
      payload: "old-order",
      date: 1700000000,
      user,
      chat,
    };
    await stack.redis.hset(keys.charges(botId), charge.id, JSON.stringify(charge));
    await stack.redis.set(keys.starBalance(botId), 12);
    await stack.redis.hset(keys.users(botId), "501", JSON.stringify(user));
    expect((await s.call("refundStarPayment", { user_id: 501, telegram_payment_charge_id: charge.id })).body).toEqual({
      ok: true,
      result: true,
    });
    const refunded = (await allUpdates(stack, s.bot.id)).find((u) => u.message?.refunded_payment)!.message;
    expect(refunded).toMatchObject({
      from: user,
      chat,
      refunded_payment: {
        currency: "XTR",
        total_amount: 12,
        invoice_payload: "old-order",
        telegram_payment_charge_id: charge.id,
      },
    });
    expect((await s.ledger()).at(-1)).toMatchObject({
      id: charge.id,
      amount: 12,
      receiver: { type: "user", transaction_type: "invoice_payment", user, invoice_payload: "old-order" },
    });
    expect(await s.balance()).toBe(0);
  });
});
