import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  botClient,
  metricIn,
  startReceiver,
  startRedis,
  startStack,
  userMessage,
  type Receiver,
  type RedisServer,
  type TestStack,
} from "@starpost/testkit";
import { keys } from "@starpost/shared";
import { createRedis, type Redis } from "@starpost/runtime";
import { byChat, eventually, startWorker } from "./worker-harness.ts";

/** Far longer than any wait below: only a pushed change can end a drain in time. */
const SLOW_RECHECK_MS = 60_000;

let stack: TestStack;
const receivers: Receiver[] = [];

beforeAll(async () => {
  stack = await startStack();
});
afterAll(async () => {
  for (const r of receivers) await r.close();
  await stack.close();
});

async function newBot() {
  const bot = await stack.platform.createBot();
  return { ...bot, api: botClient(stack.gatewayUrl, bot.token) };
}
async function receiver() {
  const r = await startReceiver({ answer: () => ({ delayMs: 50 }) });
  receivers.push(r);
  return r;
}
/** A bot whose drain is busy with 100 messages over 2 chats, one request at a time. */
async function busyBot() {
  const bot = await newBot();
  const first = await receiver();
  await bot.api("setWebhook", { url: first.url, max_connections: 1 });
  await stack.platform.pushUpdate(
    bot.id,
    Array.from({ length: 100 }, (_, i) => userMessage(1 + (i % 2), `m${i}`)),
  );
  await first.waitFor((got) => got.length >= 3);
  await stack.redis.del(keys.webhookSetLimit(bot.id)); // the once-a-second limit is not under test here
  return { bot, first };
}

describe("setWebhook and deleteWebhook reach a running drain at once (pushed, not re-read)", () => {
  let worker: ReturnType<typeof startWorker>;
  const drains = async (reason: string) =>
    metricIn(await worker.registry.render(), "starpost_webhook_drains_total", `reason="${reason}"`);
  beforeAll(() => {
    worker = startWorker(stack, { reconcileMs: SLOW_RECHECK_MS });
  });
  afterAll(async () => {
    await worker.close();
  });

  it("deleteWebhook ends the drain and leaves the rest for getUpdates", async () => {
    const { bot, first } = await busyBot();
    const ended = await drains("no_webhook");
    expect((await bot.api("deleteWebhook")).body.description).toBe("Webhook was deleted");
    await eventually(async () => (await drains("no_webhook")) === ended + 1, 3000, "the drain to hear the delete");

    const rest = (await bot.api("getUpdates", { limit: 100 })).body.result as { update_id: number }[];
    const ids = new Set([...first.received.map((g) => g.update.update_id), ...rest.map((u) => u.update_id)]);
    expect(ids.size).toBe(100);
  });

  it("a new URL takes over: the old drain ends, the rest reaches the new webhook in order, nothing lost", async () => {
    const { bot, first } = await busyBot();
    const ended = await drains("changed");
    const next = await receiver();
    expect((await bot.api("setWebhook", { url: next.url })).body.ok).toBe(true);
    await eventually(async () => (await drains("changed")) === ended + 1, 3000, "the drain to hear the new URL");
    await eventually(
      async () => (await bot.api("getWebhookInfo")).body.result.pending_update_count === 0,
      20_000,
      "the rest to reach the new webhook",
    );
    const firstNext = Math.min(...next.received.map((g) => g.at));
    expect(first.received.filter((g) => g.at > firstNext)).toEqual([]);
    for (const ids of byChat(next.received.map((g) => g.update)).values()) {
      expect([...ids].sort((a, b) => a - b)).toEqual(ids);
    }
    const ids = new Set([...first.received, ...next.received].map((g) => g.update.update_id));
    expect(ids.size).toBe(100);
  });
});

describe("a lost announcement", () => {
  let deaf: RedisServer;
  let deafSubscriber: Redis;
  let worker: ReturnType<typeof startWorker>;
  beforeAll(async () => {
    // The worker's subscriber listens to another Redis: no announcement ever reaches it.
    deaf = await startRedis();
    deafSubscriber = createRedis({ url: deaf.url, logger: stack.logger, role: "deaf-subscriber" });
    worker = startWorker(stack, { reconcileMs: 300, subscriber: deafSubscriber });
  });
  afterAll(async () => {
    await worker.close();
    await deafSubscriber.quit();
    await deaf.stop();
  });

  it("is made up for by the slow re-read (on the reconcile interval): the new URL still takes over", async () => {
    const { bot, first } = await busyBot();
    const next = await receiver();
    expect((await bot.api("setWebhook", { url: next.url })).body.ok).toBe(true);
    await eventually(
      async () => (await bot.api("getWebhookInfo")).body.result.pending_update_count === 0,
      20_000,
      "the rest to reach the new webhook",
    );
    expect(next.received.length).toBeGreaterThan(0);
    const ids = new Set([...first.received, ...next.received].map((g) => g.update.update_id));
    expect(ids.size).toBe(100);
  });
});

describe("a drain job that carries its push's updates (it starts without reading)", () => {
  /** A bot with a webhook at `old` and one update pushed while no worker runs, then its webhook moved to `next`. */
  async function movedAfterPush() {
    const bot = await newBot();
    const [old, next] = [await receiver(), await receiver()];
    await bot.api("setWebhook", { url: old.url });
    await stack.platform.pushUpdate(bot.id, userMessage(1, "pushed before the move"));
    await stack.redis.del(keys.webhookSetLimit(bot.id)); // the once-a-second limit is not under test here
    expect((await bot.api("setWebhook", { url: next.url })).body.ok).toBe(true);
    const drained = () =>
      eventually(
        async () => (await bot.api("getWebhookInfo")).body.result.pending_update_count === 0,
        10_000,
        "the update to be confirmed",
      );
    return { old, next, drained };
  }

  it("started in time, sends to the webhook of the push; the confirmation finds it replaced and keeps the update for the new one", async () => {
    const { old, next, drained } = await movedAfterPush();
    const worker = startWorker(stack, { firstFreshMs: 60_000 });
    try {
      await drained();
      expect(old.received.map((g) => g.update.message.text)).toEqual(["pushed before the move"]);
      expect(next.received.map((g) => g.update.update_id)).toEqual([old.received[0]!.update.update_id]);
    } finally {
      await worker.close();
    }
  });

  it("started late, reads the bot instead: only the new webhook gets the update", async () => {
    const { old, next, drained } = await movedAfterPush();
    const worker = startWorker(stack, { firstFreshMs: 0 });
    try {
      await drained();
      expect(next.received.map((g) => g.update.message.text)).toEqual(["pushed before the move"]);
      expect(old.received).toEqual([]);
    } finally {
      await worker.close();
    }
  });
});
