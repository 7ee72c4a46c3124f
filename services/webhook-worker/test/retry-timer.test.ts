import { describe, expect, it } from "vitest";
import { Redis } from "ioredis";
import { keys } from "@starpost/shared";
import { loadWebhook } from "@starpost/runtime";
import { HANDED_PER_SLOT, RetryTimer } from "../src/drain/retry-timer.ts";
import type { DrainOutcome } from "../src/drain/bot-drain.ts";
import { drainJobId } from "@starpost/update-log";
import { botClient, openTicket, startReceiver, userMessage, type Answer } from "@starpost/testkit";
import { eventually, startWorker, useQueueStack } from "./worker-harness.ts";

/**
 * The retry timer (keys.webhookRetries): a failing bot is parked there between attempts, its
 * retries run by the workers outside BullMQ, and what a worker killed mid-way leaves behind is
 * taken up again.
 */

const t = useQueueStack();

/** A bot with a webhook at a new receiver answering `answer`, and no worker running yet. */
async function hookedBot(answer?: Answer) {
  const bot = await t.stack.platform.createBot();
  const receiver = await startReceiver({ answer });
  t.receivers.push(receiver);
  expect((await botClient(t.stack.gatewayUrl, bot.token)("setWebhook", { url: receiver.url })).body.ok).toBe(true);
  return { bot, botId: String(bot.id), receiver };
}

/** A bot whose webhook answers its first request 429 with Retry-After `seconds`, then 200. */
const failingOnce = (seconds: number) =>
  hookedBot((_r, n) => (n === 1 ? { status: 429, headers: { "retry-after": String(seconds) } } : undefined));

const parked = (botId: string) => t.stack.redis.zscore(keys.webhookRetries(), botId);
const held = (botId: string) => t.stack.redis.hget(keys.webhookStatus(botId), "retry_at");

describe("the retry timer", () => {
  it("holds a failing bot between attempts, without a drain job, and runs its retry when due", async () => {
    // 8 slots over 8 shards: a drain waiting for a retry always parks its bot.
    const worker = startWorker(t.stack, { concurrency: 8, backoffScale: 1 });
    try {
      const { bot, botId, receiver } = await failingOnce(5);
      await t.stack.platform.pushUpdate(bot.id, userMessage(1, "later"));
      await receiver.waitFor((got) => got.length === 1);
      await eventually(async () => Number(await parked(botId)) > Date.now(), 5000, "parked until the retry");
      expect(Number(await held(botId))).toBe(Number(await parked(botId)));
      // While it waits, the bot has no drain job (waiting, delayed or running): the one that
      // parked it ends once it has.
      await eventually(
        async () =>
          (await t.queues.forBot(botId).getJob(drainJobId(botId, (await openTicket(t.stack.redis, botId))!))) ===
          undefined,
        5000,
        "the parking job gone",
      );
      await receiver.waitFor((got) => got.length === 2, 10_000);
      expect(receiver.received[1]!.update.update_id).toBe(receiver.received[0]!.update.update_id);
      await eventually(async () => (await parked(botId)) === null && (await held(botId)) === null, 5000);
    } finally {
      await worker.close();
    }
  });

  it("an update pushed while the timer holds the bot waits for the retry and goes after it", async () => {
    const worker = startWorker(t.stack, { concurrency: 8, backoffScale: 1 });
    try {
      const { bot, botId, receiver } = await failingOnce(4);
      await t.stack.platform.pushUpdate(bot.id, userMessage(1, "first"));
      await receiver.waitFor((got) => got.length === 1);
      await eventually(async () => (await parked(botId)) !== null, 5000, "parked");
      // Another chat's update: the drain job its append asks for leaves the bot to the timer, so
      // it goes only with the retry, after it (until a success, one request at a time).
      await t.stack.platform.pushUpdate(bot.id, userMessage(2, "second"));
      await receiver.waitFor((got) => got.length === 3, 10_000);
      expect(receiver.received.map((r) => r.update.message.text)).toEqual(["first", "first", "second"]);
    } finally {
      await worker.close();
    }
  });

  it("takes up a run whose worker died: the claim lapsed with the bot marked as running", async () => {
    const { bot, botId, receiver } = await hookedBot();
    // What a worker killed during a retry run leaves: the mark and a claim that has lapsed; an
    // update pushed since waits for the run.
    await t.stack.redis.hset(keys.webhookStatus(botId), "retry_at", "run");
    await t.stack.redis.zadd(keys.webhookRetries(), Date.now() - 1, botId);
    await t.stack.platform.pushUpdate(bot.id, userMessage(1, "after a crash"));
    const worker = startWorker(t.stack);
    try {
      await receiver.waitFor((got) => got.length === 1, 10_000);
      expect(receiver.received[0]!.update.message.text).toBe("after a crash");
      await eventually(async () => (await parked(botId)) === null && (await held(botId)) === null, 5000);
    } finally {
      await worker.close();
    }
  });

  it("puts back a parked bot's entry that went missing (its worker died between the two writes)", async () => {
    const { bot, botId, receiver } = await hookedBot();
    const due = Date.now() + 5000;
    await t.stack.redis.hset(keys.webhookStatus(botId), "retry_at", String(due));
    const worker = startWorker(t.stack);
    try {
      // The append's drain job finds the bot held and gives it back its timer entry.
      await t.stack.platform.pushUpdate(bot.id, userMessage(1, "kept for the retry"));
      await eventually(async () => Number(await parked(botId)) === due, 5000, "the entry put back");
      await receiver.waitFor((got) => got.length === 1, 10_000);
      expect(receiver.received[0]!.at).toBeGreaterThanOrEqual(due - 50);
    } finally {
      await worker.close();
    }
  });

  it("looks at the bot of an entry it drops: updates that a release whose answer was lost left with no drain job go", async () => {
    const { bot, botId, receiver } = await hookedBot();
    await t.stack.platform.pushUpdate(bot.id, userMessage(1, "stranded"));
    // What a release whose answer was lost can leave: the update pending, its epoch open with no
    // job, and the bot's timer entry with the bot no longer held (no retry_at). The bot is taken
    // out of the sweep's index, so only the timer can find it.
    await (await t.queues.forBot(botId).getJob(drainJobId(botId, (await openTicket(t.stack.redis, botId))!)))!.remove();
    await t.stack.redis.srem(keys.webhookBotsOf(botId), botId);
    await t.stack.redis.zadd(keys.webhookRetries(), Date.now() - 1, botId);
    const worker = startWorker(t.stack);
    try {
      await receiver.waitFor((got) => got.length === 1, 10_000);
      expect(receiver.received[0]!.update.message.text).toBe("stranded");
      expect(await parked(botId)).toBeNull();
    } finally {
      await worker.close();
    }
  });

  it("drops an entry the bot no longer answers to (its status was cleared by setWebhook)", async () => {
    const { botId } = await hookedBot();
    await t.stack.redis.zadd(keys.webhookRetries(), Date.now() - 1, botId);
    const worker = startWorker(t.stack);
    try {
      await eventually(async () => (await parked(botId)) === null, 5000, "the stale entry dropped");
    } finally {
      await worker.close();
    }
  });
});

describe("a hand-over to the timer", () => {
  /** A timer of `slots` slots that is not started (no look claims anything). */
  const idleTimer = (slots: number, redis = t.stack.redis) =>
    new RetryTimer({
      redis,
      logger: t.stack.logger,
      slots,
      claimMs: 5000,
      run: () => Promise.resolve({ reason: "stale" }),
      request: () => Promise.resolve(),
    });
  const generationOf = async (botId: string) => (await loadWebhook(t.stack.redis, botId))!.generation;

  it("is refused, nothing written, once the timer runs slots × HANDED_PER_SLOT drains, or a run of the bot", async () => {
    const timer = idleTimer(1);
    let end!: (o: DrainOutcome) => void;
    const drain = new Promise<DrainOutcome>((resolve) => (end = resolve));
    try {
      const bots = await Promise.all(Array.from({ length: HANDED_PER_SLOT + 1 }, () => hookedBot()));
      const results = await Promise.all(
        bots
          .slice(0, HANDED_PER_SLOT)
          .map(async ({ botId }) => timer.handOver(botId, await generationOf(botId), drain)),
      );
      expect(results).toEqual(Array.from({ length: HANDED_PER_SLOT }, () => "handed"));
      const { botId } = bots[HANDED_PER_SLOT]!;
      expect(await timer.handOver(botId, await generationOf(botId), drain)).toBe("not_handed");
      expect(await held(botId)).toBeNull();
      expect(await parked(botId)).toBeNull();
      // A bot whose run is here already: refused before any write.
      const first = bots[0]!.botId;
      expect(await timer.handOver(first, await generationOf(first), drain)).toBe("not_handed");
      expect(await held(first)).toBe("run");
    } finally {
      end({ reason: "empty" });
      await timer.close();
    }
  });

  it("is unknown when Redis fails under it (a timed-out write may still have landed)", async () => {
    // Commands fail at once: never connected, and no offline queue.
    const broken = new Redis(t.stack.redisServer.url, { lazyConnect: true, enableOfflineQueue: false });
    const timer = idleTimer(1, broken);
    try {
      const { botId } = await hookedBot();
      expect(await timer.handOver(botId, await generationOf(botId), new Promise(() => undefined))).toBe("unknown");
    } finally {
      await timer.close();
      broken.disconnect();
    }
  });
});
