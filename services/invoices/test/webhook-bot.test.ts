import { afterAll, beforeAll, expect, it } from "vitest";
import { createRedis, type Redis } from "@starpost/runtime";
import { createDeliveryQueue, drainJobId, type DeliveryQueues } from "@starpost/update-log";
import { botClient, eventually, openTicket, startStack, type TestStack } from "@starpost/testkit";
import { waitForUpdate } from "./helpers.ts";

let stack: TestStack;
let queueConnection: Redis;
let queue: DeliveryQueues;

beforeAll(async () => {
  stack = await startStack();
  queueConnection = createRedis({ url: stack.redisServer.url, logger: stack.logger, role: "test-queue", bullmq: true });
  queue = createDeliveryQueue(queueConnection);
});
afterAll(async () => {
  await queue.close();
  await queueConnection.quit();
  await stack.close();
});

it("payment updates of a bot with a webhook get a delivery job (no worker runs here, so it waits)", async () => {
  const bot = await stack.platform.createBot();
  await stack.platform.putChat(bot.id, { id: 701, type: "private", first_name: "Di" });
  const call = botClient(stack.gatewayUrl, bot.token);
  expect((await call("setWebhook", { url: "http://127.0.0.1:9/hook" })).body.ok).toBe(true);
  const msg = (
    await call("sendInvoice", {
      chat_id: 701,
      title: "T",
      description: "D",
      payload: "p",
      currency: "XTR",
      prices: [{ label: "x", amount: 3 }],
    })
  ).body.result.message_id;
  expect(await openTicket(stack.redis, String(bot.id))).toBeUndefined();

  const paying = stack.platform.call("POST", `/bots/${bot.id}/payments`, {
    chat_id: 701,
    message_id: msg,
    user: { id: 701, first_name: "Di" },
  });
  const q = await waitForUpdate(stack, bot.id, (u) => u.pre_checkout_query);
  // The drain job is scheduled right after the step that appended the query.
  const ticket = await openTicket(stack.redis, String(bot.id));
  expect(ticket).toBeDefined();
  const jobOf = () => queue.forBot(String(bot.id)).getJob(drainJobId(String(bot.id), ticket!));
  await eventually(async () => (await jobOf()) !== undefined, 10_000, "the drain job");
  expect((await jobOf())?.data).toEqual({ botId: String(bot.id), ticket });
  expect(
    (await call("answerPreCheckoutQuery", { pre_checkout_query_id: q.pre_checkout_query.id, ok: true })).body.result,
  ).toBe(true);
  expect((await paying).body.result.status).toBe("paid");
  await waitForUpdate(stack, bot.id, (u) => u.message?.successful_payment);
});
