import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { botClient, startReceiver, startStack, userMessage, type Receiver, type TestStack } from "@starpost/testkit";
import { sleep, startWorker } from "./worker-harness.ts";

let stack: TestStack;
let worker: ReturnType<typeof startWorker>;
let receiver: Receiver;

beforeAll(async () => {
  stack = await startStack();
  worker = startWorker(stack, { backoffScale: 0.01 });
  // Every delivery is answered 500 after 300 ms.
  receiver = await startReceiver({ answer: () => ({ status: 500, delayMs: 300 }) });
});
afterAll(async () => {
  await worker.close();
  await receiver.close();
  await stack.close();
});

describe("a delivery failing just after deleteWebhook", () => {
  it("leaves no stale last error behind", async () => {
    const bot = await stack.platform.createBot();
    const api = botClient(stack.gatewayUrl, bot.token);
    await api("setWebhook", { url: receiver.url });
    await stack.platform.pushUpdate(bot.id, userMessage(7, "hello"));
    await receiver.waitFor((got) => got.length === 1);
    // Delete the webhook a few ms before the 500 comes back, well inside the drain's 200 ms check.
    await sleep(Math.max(0, receiver.received[0]!.at + 290 - Date.now()));
    expect((await api("deleteWebhook")).body.description).toBe("Webhook was deleted");
    await sleep(400);
    const info = (await api("getWebhookInfo")).body.result;
    expect(info).toEqual({ url: "", has_custom_certificate: false, pending_update_count: 1 });
  });
});
