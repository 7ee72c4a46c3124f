import { afterAll, beforeAll, expect, it } from "vitest";
import type { FastifyInstance } from "fastify";
import { buildApp } from "@starpost/invoices";
import { createRedis, type Redis } from "@starpost/runtime";
import { createDeliveryQueue } from "@starpost/update-log";
import { botClient, eventually, http, metric, startStack, type TestStack } from "@starpost/testkit";
import { waitForUpdate } from "./helpers.ts";

// The stack's internal token (packages/testkit/src/stack.ts).
const INTERNAL_TOKEN = "test-internal-token";

let stack: TestStack;
let replica: FastifyInstance;
let replicaUrl: string;
let closeQueue: () => Promise<void>;
const clients: Redis[] = [];

beforeAll(async () => {
  stack = await startStack();
  const connect = (role: string, bullmq = false) => {
    const c = createRedis({ url: stack.redisServer.url, logger: stack.logger, role, bullmq });
    clients.push(c);
    return c;
  };
  const deliveryQueue = createDeliveryQueue(connect("replica-queue", true));
  replica = await buildApp({
    redis: connect("replica"),
    subscriber: connect("replica-subscriber"),
    deliveryQueue,
    logger: stack.logger,
    internalToken: INTERNAL_TOKEN,
  });
  replicaUrl = await replica.listen({ port: 0, host: "127.0.0.1" });
  closeQueue = () => deliveryQueue.close();
});
afterAll(async () => {
  await replica.close();
  await closeQueue();
  await Promise.all(clients.map((c) => c.quit()));
  await stack.close();
});

const internal = { "x-internal-token": INTERNAL_TOKEN };

it("a payment waiting on one replica is woken by an answer on another, at once", async () => {
  const bot = await stack.platform.createBot();
  await stack.platform.putChat(bot.id, { id: 601, type: "private", first_name: "Cy" });
  const call = botClient(stack.gatewayUrl, bot.token);
  const send = await call("sendInvoice", {
    chat_id: 601,
    title: "T",
    description: "D",
    payload: "p",
    currency: "XTR",
    prices: [{ label: "x", amount: 9 }],
  });
  const user = { id: 601, first_name: "Cy" };

  // Waiting on the stack's replica (through the gateway), answered on the second replica.
  let started = Date.now();
  const paying = stack.platform.call("POST", `/bots/${bot.id}/payments`, {
    chat_id: 601,
    message_id: send.body.result.message_id,
    user,
  });
  const q1 = await waitForUpdate(stack, bot.id, (u) => u.pre_checkout_query);
  const answer = await http(replicaUrl, "POST", "/internal/call/answerPreCheckoutQuery", {
    body: {
      bot: { id: String(bot.id), username: bot.username, first_name: bot.first_name },
      params: { pre_checkout_query_id: q1.pre_checkout_query.id, ok: true },
    },
    headers: internal,
  });
  expect(answer.body).toEqual({ ok: true, result: true });
  expect((await paying).body.result.status).toBe("paid");
  // Well before the 10 s deadline: the wake-up crossed replicas through pub/sub.
  expect(Date.now() - started).toBeLessThan(5_000);

  // Waiting on the second replica, answered through the gateway.
  started = Date.now();
  const paying2 = http(replicaUrl, "POST", `/internal/platform/bots/${bot.id}/payments`, {
    body: { chat_id: 601, message_id: send.body.result.message_id, user },
    headers: internal,
  });
  const q2 = await waitForUpdate(
    stack,
    bot.id,
    (u) => u.pre_checkout_query && u.pre_checkout_query.id !== q1.pre_checkout_query.id,
  );
  expect(
    (
      await call("answerPreCheckoutQuery", {
        pre_checkout_query_id: q2.pre_checkout_query.id,
        ok: false,
        error_message: "later",
      })
    ).body.result,
  ).toBe(true);
  expect((await paying2).body).toEqual({ ok: true, result: { status: "declined", error_message: "later" } });
  expect(Date.now() - started).toBeLessThan(5_000);
  expect((await call("getMyStarBalance")).body.result).toEqual({ amount: 9 });
});

it("answers internal calls only with the internal token", async () => {
  const r = await http(replicaUrl, "POST", "/internal/call/getMyStarBalance", {
    body: { bot: { id: "1", username: "a_bot", first_name: "A" }, params: {} },
  });
  expect(r.body).toEqual({ ok: false, error_code: 401, description: "Unauthorized" });
});

it("a history read and a button press held on one replica are woken by the bot's calls on another", async () => {
  const bot = await stack.platform.createBot();
  await stack.platform.putChat(bot.id, { id: 602, type: "private", first_name: "Di" });
  const call = botClient(stack.gatewayUrl, bot.token);

  // The read is held by the second replica; the bot's message lands on the stack's.
  const started = Date.now();
  const reading = http(replicaUrl, "GET", `/internal/platform/bots/${bot.id}/chats/602/messages?wait_ms=20000`, {
    headers: internal,
  });
  await eventually(
    async () => (await metric(replicaUrl, "starpost_history_reads_waiting")) === 1,
    10_000,
    "the read to be held",
  );
  const sent = (
    await call("sendMessage", {
      chat_id: 602,
      text: "Pick",
      reply_markup: { inline_keyboard: [[{ text: "A", callback_data: "a" }]] },
    })
  ).body.result;
  expect((await reading).body.result.messages).toEqual([sent]);

  // The press waits on the second replica; the answer goes through the gateway to the stack's.
  const pressing = http(replicaUrl, "POST", `/internal/platform/bots/${bot.id}/chats/602/callback_queries`, {
    body: { message_id: sent.message_id, data: "a", wait_answer_ms: 15_000 },
    headers: internal,
  });
  const query = await waitForUpdate(stack, bot.id, (u) => u.callback_query);
  expect(await metric(replicaUrl, "starpost_presses_waiting")).toBe(1);
  await call("answerCallbackQuery", { callback_query_id: query.callback_query.id, text: "ok" });
  expect((await pressing).body.result.answer).toEqual({ text: "ok", show_alert: false, url: "" });
  // Well before the waits' limits: the wake-ups crossed replicas through pub/sub.
  expect(Date.now() - started).toBeLessThan(10_000);
});
