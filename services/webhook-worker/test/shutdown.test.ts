import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  botClient,
  startLocalStack,
  startReceiver,
  userMessage,
  type LocalStack,
  type Receiver,
} from "@starpost/testkit";
import { eventually } from "./worker-harness.ts";

/** SIGTERM: a worker answers its in-flight request's outcome, confirms it, and hands the rest over. */

let local: LocalStack;
let receiver: Receiver;

beforeAll(async () => {
  local = await startLocalStack({ workers: 1, env: { LOG_LEVEL: "warn" }, extraEnv: { WEBHOOK_RECONCILE_MS: "500" } });
  receiver = await startReceiver({ answer: () => ({ delayMs: 1500 }) });
}, 60_000);
afterAll(async () => {
  await local?.stop();
  await receiver?.close();
});

describe("SIGTERM of a webhook worker", () => {
  it("finishes the request in flight, confirms it, and leaves the rest to the next worker", async () => {
    const { stack, platform } = local;
    const bot = await platform.createBot();
    const api = botClient(stack.gatewayUrl, bot.token);
    await api("setWebhook", { url: receiver.url, max_connections: 1 });
    await platform.pushUpdate(bot.id, [userMessage(1, "one"), userMessage(1, "two"), userMessage(1, "three")]);
    await receiver.waitFor((got) => got.length === 1);

    const worker = stack.processes.find((p) => p.service === "webhook-worker")!;
    const exited = new Promise<number | null>((resolve) => worker.child.once("exit", (code) => resolve(code)));
    const termAt = Date.now();
    worker.child.kill("SIGTERM");
    expect(await exited).toBe(0);
    // It waited for the answer (1.5 s) instead of dropping the connection.
    expect(Date.now() - termAt).toBeGreaterThan(1000);
    expect(receiver.received).toHaveLength(1);
    expect((await api("getWebhookInfo")).body.result.pending_update_count).toBe(2);

    receiver.answer = () => undefined;
    await stack.addReplica("webhook-worker");
    await receiver.waitFor((got) => got.length === 3);
    // Once all three are confirmed nothing more is sent, so what was received is final.
    await eventually(async () => (await api("getWebhookInfo")).body.result.pending_update_count === 0);
    expect(receiver.received.map((g) => g.update.message.text)).toEqual(["one", "two", "three"]);
  }, 60_000);
});
