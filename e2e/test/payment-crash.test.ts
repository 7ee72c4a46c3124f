import { afterAll, beforeAll, expect, it } from "vitest";
import { botClient, eventually, startLocalStack, type LocalStack } from "@starpost/testkit";

/**
 * The payment hole: the invoices process is killed (SIGKILL, by a test-only crash point) the
 * instant answerPreCheckoutQuery's Lua step returns, before anything else runs. The charge and the
 * successful_payment that tells the bot must exist together; a retried answer changes nothing.
 * Then Redis itself is killed and restarted from its append-only file: both are still there.
 */
let local: LocalStack;
beforeAll(async () => {
  local = await startLocalStack({
    appendonly: true,
    workers: 1,
    extraEnv: { STARPOST_CRASH_POINT: "answer-pre-checkout:after-script" },
  });
});
afterAll(() => local?.stop());

/**
 * A bot, a user's payment of an invoice (with an idempotency key) and the bot's answer, during
 * which the invoices process kills itself at its crash point; resolves once it died.
 */
async function answerAndDie(chatId: number, amount: number, payload: string) {
  const bot = await local.platform.createBot();
  await local.platform.putChat(bot.id, { id: chatId, type: "private", first_name: "Ann" });
  const call = botClient(local.gatewayUrl, bot.token);
  const sent = await call("sendInvoice", {
    chat_id: chatId,
    title: "T",
    description: "D",
    payload,
    currency: "XTR",
    prices: [{ label: "x", amount }],
  });
  const payment = {
    chat_id: chatId,
    message_id: sent.body.result.message_id,
    user: { id: chatId, first_name: "Ann" },
    idempotency_key: payload,
  };
  const paying = local.platform.call("POST", `/bots/${bot.id}/payments`, payment);
  let queryId = "";
  await eventually(async () => {
    const updates = (await call("getUpdates", { timeout: 0 })).body.result as any[];
    queryId = updates.find((u) => u.pre_checkout_query)?.pre_checkout_query.id ?? "";
    return queryId !== "";
  });
  const invoices = local.stack.processes.find((p) => p.service === "invoices")!;
  const died = new Promise((resolve) => invoices.child.once("exit", (_code, signal) => resolve(signal)));
  const answer = await call("answerPreCheckoutQuery", { pre_checkout_query_id: queryId, ok: true });
  expect(await died).toBe("SIGKILL");
  expect(answer.status).toBeGreaterThanOrEqual(500);
  expect((await paying).status).toBeGreaterThanOrEqual(500);
  return { bot, call, payment, queryId, invoices };
}

it("a charge and its successful_payment are written together, even when the invoices process dies right after", async () => {
  const { bot, call, payment, queryId, invoices } = await answerAndDie(601, 7, "order-1");
  await local.stack.restart("invoices", { STARPOST_CRASH_POINT: undefined });
  const check = async () => {
    const txns = (await call("getStarTransactions")).body.result.transactions as any[];
    const updates = (await call("getUpdates", { timeout: 0 })).body.result as any[];
    const payments = updates.filter((u) => u.message?.successful_payment).map((u) => u.message.successful_payment);
    expect(txns).toHaveLength(1);
    expect(txns[0]).toMatchObject({ amount: 7, source: { invoice_payload: "order-1" } });
    expect(payments).toEqual([
      {
        currency: "XTR",
        total_amount: 7,
        invoice_payload: "order-1",
        telegram_payment_charge_id: txns[0].id,
        provider_payment_charge_id: "",
      },
    ]);
    expect((await call("getMyStarBalance")).body.result).toEqual({ amount: 7 });
  };
  await check();
  // The platform, which lost its call with the process, retries with the same key: the first outcome.
  const repeated = await local.platform.call("POST", `/bots/${bot.id}/payments`, payment);
  const txns = (await call("getStarTransactions")).body.result.transactions as any[];
  expect(repeated.body.result).toEqual({ status: "paid", telegram_payment_charge_id: txns[0].id });
  await check();

  // The bot retries the answer it never heard back about: refused, nothing moves twice.
  const retried = await call("answerPreCheckoutQuery", { pre_checkout_query_id: queryId, ok: true });
  expect(retried.body).toEqual({
    ok: false,
    error_code: 400,
    description: "Bad Request: query is too old and response timeout expired or query ID is invalid",
  });
  await check();

  // Redis killed and restarted from its append-only file: the step is there whole.
  await local.redis.restart({ kill: true });
  await eventually(
    async () =>
      (await fetch(`${local.gatewayUrl}/readyz`)).ok && (await fetch(`http://127.0.0.1:${invoices.port}/readyz`)).ok,
    20_000,
  );
  await check();
});

it("an answer whose process died before its step moved nothing, and its retry pays once", async () => {
  await local.stack.restart("invoices", { STARPOST_CRASH_POINT: "answer-pre-checkout:before-script" });
  const { bot, call, payment, queryId } = await answerAndDie(602, 3, "order-2");
  await local.stack.restart("invoices", { STARPOST_CRASH_POINT: undefined });
  expect((await call("getStarTransactions")).body.result.transactions).toEqual([]);
  const updates = async () => (await call("getUpdates", { timeout: 0 })).body.result as any[];
  expect((await updates()).filter((u) => u.message?.successful_payment)).toEqual([]);

  // The query is still pending (its 10 s run from the payment): the bot's retry goes through, once.
  expect((await call("answerPreCheckoutQuery", { pre_checkout_query_id: queryId, ok: true })).body).toEqual({
    ok: true,
    result: true,
  });
  const txns = (await call("getStarTransactions")).body.result.transactions as any[];
  expect(txns).toHaveLength(1);
  expect(
    (await updates())
      .filter((u) => u.message?.successful_payment)
      .map((u) => u.message.successful_payment.telegram_payment_charge_id),
  ).toEqual([txns[0].id]);
  expect((await local.platform.call("POST", `/bots/${bot.id}/payments`, payment)).body.result).toEqual({
    status: "paid",
    telegram_payment_charge_id: txns[0].id,
  });
});
