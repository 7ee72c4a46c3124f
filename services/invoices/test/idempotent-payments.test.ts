import { afterAll, beforeAll, expect, it } from "vitest";
import { botClient, eventually, metric, startStack, type TestStack } from "@starpost/testkit";
import { allUpdates, waitForUpdate } from "./helpers.ts";

// POST /platform/v1/bots/:botId/payments with an idempotency_key: a platform that lost its
// connection mid-payment retries with the same key and gets the first attempt's outcome.
let stack: TestStack;
beforeAll(async () => {
  stack = await startStack();
});
afterAll(() => stack.close());

async function shop(chatId: number) {
  const bot = await stack.platform.createBot();
  await stack.platform.putChat(bot.id, { id: chatId, type: "private", first_name: "Ann" });
  const call = botClient(stack.gatewayUrl, bot.token);
  const invoice = async (amount: number) =>
    (
      await call("sendInvoice", {
        chat_id: chatId,
        title: "T",
        description: "D",
        payload: `p${amount}`,
        currency: "XTR",
        prices: [{ label: "x", amount }],
      })
    ).body.result.message_id as number;
  const pay = (messageId: number, key?: string) =>
    stack.platform.call("POST", `/bots/${bot.id}/payments`, {
      chat_id: chatId,
      message_id: messageId,
      user: { id: chatId, first_name: "Ann" },
      idempotency_key: key,
    });
  const queries = async () => (await allUpdates(stack, bot.id)).filter((u) => u.pre_checkout_query);
  return { bot, call, invoice, pay, queries };
}

it("repeats while waiting and after the answer get the first outcome; one query, one charge", async () => {
  const s = await shop(801);
  const msg = await s.invoice(9);
  const first = s.pay(msg, "k-1");
  const q = await waitForUpdate(stack, s.bot.id, (u) => u.pre_checkout_query);
  const whileWaiting = s.pay(msg, "k-1");
  await eventually(
    async () => (await metric(stack.invoicesUrl, "starpost_payments_waiting")) === 2,
    10_000,
    "the repeat waiting too",
  );
  expect(
    (await s.call("answerPreCheckoutQuery", { pre_checkout_query_id: q.pre_checkout_query.id, ok: true })).body.result,
  ).toBe(true);
  const outcome = (await first).body.result;
  expect(outcome).toMatchObject({ status: "paid" });
  expect((await whileWaiting).body.result).toEqual(outcome);
  expect((await s.pay(msg, "k-1")).body.result).toEqual(outcome);
  expect(await s.queries()).toHaveLength(1);
  const txns = (await s.call("getStarTransactions")).body.result.transactions;
  expect(txns.map((t: any) => t.id)).toEqual([outcome.telegram_payment_charge_id]);
  expect((await s.call("getMyStarBalance")).body.result.amount).toBe(9);
  expect((await allUpdates(stack, s.bot.id)).filter((u) => u.message?.successful_payment)).toHaveLength(1);
});

it("a declined payment repeats as declined; a new key pays anew; a key reused for another invoice is refused", async () => {
  const s = await shop(802);
  const msg = await s.invoice(4);
  const first = s.pay(msg, "k-2");
  const q = await waitForUpdate(stack, s.bot.id, (u) => u.pre_checkout_query);
  await s.call("answerPreCheckoutQuery", {
    pre_checkout_query_id: q.pre_checkout_query.id,
    ok: false,
    error_message: "Sold out",
  });
  expect((await first).body.result).toEqual({ status: "declined", error_message: "Sold out" });
  expect((await s.pay(msg, "k-2")).body.result).toEqual({ status: "declined", error_message: "Sold out" });

  const other = await s.invoice(5);
  expect((await s.pay(other, "k-2")).body).toEqual({
    ok: false,
    error_code: 400,
    description: "Bad Request: idempotency_key was already used for another payment",
  });
  const again = s.pay(msg, "k-3");
  await waitForUpdate(
    stack,
    s.bot.id,
    (u) => u.pre_checkout_query && u.pre_checkout_query.id !== q.pre_checkout_query.id,
  );
  expect(await s.queries()).toHaveLength(2);
  const q2 = (await s.queries())[1].pre_checkout_query;
  await s.call("answerPreCheckoutQuery", { pre_checkout_query_id: q2.id, ok: true });
  expect((await again).body.result.status).toBe("paid");
});

it("refuses a key outside 1-64 characters and changes nothing", async () => {
  const s = await shop(803);
  const msg = await s.invoice(3);
  for (const key of ["", "x".repeat(65)]) {
    const r = await s.pay(msg, key);
    expect(r.status).toBe(400);
    expect(r.body.ok).toBe(false);
  }
  expect(await s.queries()).toHaveLength(0);
});
