import { describe, expect, it } from "vitest";
import { keys } from "@starpost/shared";
import { botClient, startReceiver, userMessage } from "@starpost/testkit";
import { oldestPendingAges, type PendingState } from "../src/pending-age.ts";
import { eventually, useQueueStack } from "./worker-harness.ts";

/**
 * starpost_webhook_oldest_pending_age_seconds's look-up, on a stack with no worker: drain jobs
 * stay waiting, and the retry timer's set and the bots "running here" are what the test puts there.
 */
const t = useQueueStack();

async function pendingWebhookBot() {
  const receiver = await startReceiver();
  t.receivers.push(receiver);
  const bot = await t.stack.platform.createBot();
  expect((await botClient(t.stack.gatewayUrl, bot.token)("setWebhook", { url: receiver.url })).body.ok).toBe(true);
  await t.stack.platform.pushUpdate(bot.id, userMessage(3, "hi"));
  return String(bot.id);
}

describe("the oldest pending webhook update's age", () => {
  it("is read by state: waiting for a slot, failing (the retry timer's), delivering here; 0 where none", async () => {
    const empty = await oldestPendingAges({ redis: t.stack.redis, queue: t.queues, here: new Map(), sample: 100 });
    expect(empty).toEqual({ delivering: 0, waiting: 0, retrying: 0 });

    await pendingWebhookBot(); // its drain job waits: no worker runs
    const failing = await pendingWebhookBot();
    const delivering = await pendingWebhookBot();
    await t.stack.redis.zadd(keys.webhookRetries(), Date.now() + 60_000, failing);
    const here = new Map<string, PendingState>([[delivering, "delivering"]]);
    const look = () => oldestPendingAges({ redis: t.stack.redis, queue: t.queues, here, sample: 100 });

    let ages = await look();
    await eventually(
      async () => {
        ages = await look();
        return ages.waiting > 0.2 && ages.retrying > 0.2 && ages.delivering > 0.2;
      },
      10_000,
      () => `every state aged, saw ${JSON.stringify(ages)}`,
    );
    // The oldest update is the first bot's: it waits longest.
    expect(ages.waiting).toBeGreaterThanOrEqual(ages.delivering);
    expect(ages.waiting).toBeLessThan(60);

    // A sample of 0 reads no failing bot; a bot whose log is empty adds nothing.
    const unsampled = await oldestPendingAges({ redis: t.stack.redis, queue: t.queues, here, sample: 0 });
    expect(unsampled.retrying).toBe(0);
    await t.stack.redis.del(keys.updateLog(delivering));
    expect((await look()).delivering).toBe(0);
  });
});
