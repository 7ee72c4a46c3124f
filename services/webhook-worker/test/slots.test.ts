import { describe, expect, it } from "vitest";
import { botClient, openTicket, startReceiver, userMessage } from "@starpost/testkit";
import { keys } from "@starpost/shared";
import { drainJobId } from "@starpost/update-log";
import { eventually, startWorker, useQueueStack } from "./worker-harness.ts";

/**
 * A drain waiting for a retry due within 10 s keeps its slot only while its queue shard has
 * slots to spare; on a crowded shard it hands the bot to the retry timer and its job ends, so
 * failing bots never hold every slot while healthy bots wait.
 */

const t = useQueueStack();

/**
 * A bot whose webhook first answers 429 with Retry-After: 2, then 200; what was seen from the
 * first request until the second: the drain job's states ("none" without a job) and "parked"
 * while the retry timer held the bot. Once delivered, the bot leaves the timer.
 */
async function statesWhileWaiting(concurrency: number): Promise<Set<string>> {
  const worker = startWorker(t.stack, { concurrency, backoffScale: 1 });
  try {
    const bot = await t.stack.platform.createBot();
    const r = await startReceiver({
      answer: (_req, n) => (n === 1 ? { status: 429, headers: { "retry-after": "2" } } : undefined),
    });
    t.receivers.push(r);
    await botClient(t.stack.gatewayUrl, bot.token)("setWebhook", { url: r.url });
    await t.stack.platform.pushUpdate(bot.id, userMessage(1, "later"));
    await r.waitFor((got) => got.length === 1);
    const states = new Set<string>();
    const ticket = (await openTicket(t.stack.redis, String(bot.id)))!;
    const job = () => t.queues.forBot(String(bot.id)).getJob(drainJobId(String(bot.id), ticket));
    const botId = String(bot.id);
    await eventually(async () => {
      if (r.received.length >= 2) return true;
      states.add((await (await job())?.getState()) ?? "none");
      if ((await t.stack.redis.zscore(keys.webhookRetries(), botId)) !== null) states.add("parked");
      return false;
    }, 10_000);
    expect(r.received[1]!.update.update_id).toBe(r.received[0]!.update.update_id);
    await eventually(
      async () =>
        (await t.stack.redis.zscore(keys.webhookRetries(), botId)) === null &&
        (await t.stack.redis.hget(keys.webhookStatus(botId), "retry_at")) === null,
      10_000,
    );
    return states;
  } finally {
    await worker.close();
  }
}

describe("a drain waiting for a retry", () => {
  it("keeps its slot while its shard has slots to spare", async () => {
    // 64 slots over 8 shards: 8 per shard, this drain alone on its shard.
    const states = await statesWhileWaiting(64);
    expect(states.has("active")).toBe(true);
    expect(states.has("parked")).toBe(false);
  });

  it("gives its slot up on a crowded shard: the retry timer holds the bot and runs the retry when due", async () => {
    // 8 slots over 8 shards: one per shard, which this drain alone fills past half.
    const states = await statesWhileWaiting(8);
    expect(states.has("parked")).toBe(true);
    expect(states.has("none")).toBe(true);
    expect(states.has("delayed")).toBe(false);
  });
});
