import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  botClient,
  startReceiver,
  startRedis,
  startStack,
  userMessage,
  type Receiver,
  type RedisServer,
  type TestStack,
} from "@starpost/testkit";
import { byChat, eventually, startWorker } from "./worker-harness.ts";

/**
 * Redis killed and restarted from its append-only file (fsync always) while updates wait for a
 * failing webhook: every update acknowledged by ingest is still delivered, in order, afterwards.
 */

let redisServer: RedisServer;
let stack: TestStack;
let worker: ReturnType<typeof startWorker>;
let receiver: Receiver;

beforeAll(async () => {
  redisServer = await startRedis({ appendonly: true });
  stack = await startStack({ redisServer });
  worker = startWorker(stack, { reconcileMs: 300, backoffScale: 0.01 });
  receiver = await startReceiver({ answer: () => ({ status: 502 }) });
});
afterAll(async () => {
  await worker.close();
  await receiver.close();
  await stack.close();
  await redisServer.stop();
});

describe("a Redis restart from its append-only file", () => {
  it("loses no acknowledged update", async () => {
    const bot = await stack.platform.createBot();
    const api = botClient(stack.gatewayUrl, bot.token);
    await api("setWebhook", { url: receiver.url });
    const pushed = await stack.platform.pushUpdate(
      bot.id,
      Array.from({ length: 60 }, (_, i) => userMessage(1 + (i % 3), `m${i}`)),
    );
    expect(pushed.status).toBe(200);
    await eventually(
      async () =>
        (await api("getWebhookInfo")).body.result.last_error_message ===
        "Wrong response from the webhook: 502 Bad Gateway",
    );

    await redisServer.restart({ kill: true });
    const switchAt = receiver.received.length;
    receiver.answer = () => undefined;
    await receiver.waitFor((got) => got.length - switchAt >= 60, 30_000);
    // From here every request was answered 200: each update exactly once, each chat in order.
    const delivered = receiver.received.slice(switchAt).map((g) => g.update);
    expect(new Set(delivered.map((u) => u.update_id)).size).toBe(60);
    for (const ids of byChat(delivered).values()) {
      expect(ids).toHaveLength(20);
      expect([...ids].sort((a, b) => a - b)).toEqual(ids);
    }
    await eventually(async () => (await api("getWebhookInfo")).body.result.pending_update_count === 0, 20_000);
  }, 60_000);
});
