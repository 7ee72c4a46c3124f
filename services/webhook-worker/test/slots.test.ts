import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { botClient, startReceiver, startStack, userMessage, type Receiver, type TestStack } from "@starpost/testkit";
import { createRedis } from "@starpost/runtime";
import { keys } from "@starpost/shared";
import { createDeliveryQueue, drainJobId, type DeliveryQueues } from "@starpost/update-log";
import { eventually, startWorker } from "./worker-harness.ts";

/**
 * A drain waiting for a retry due within 10 s keeps its slot only while its queue shard has
 * slots to spare; on a crowded shard it hands the bot to the retry timer and its job ends, so
 * failing bots never hold every slot while healthy bots wait.
 */

let stack: TestStack;
let queues: DeliveryQueues;
let connection: ReturnType<typeof createRedis>;
const receivers: Receiver[] = [];

beforeAll(async () => {
  stack = await startStack();
  connection = createRedis({ url: stack.redisServer.url, logger: stack.logger, role: "test-queue", bullmq: true });
  queues = createDeliveryQueue(connection);
});
afterAll(async () => {
  for (const r of receivers) await r.close();
  await queues.close();
  await connection.quit();
  await stack.close();
});

/**
 * A bot whose webhook first answers 429 with Retry-After: 2, then 200; what was seen from the
 * first request until the second: the drain job's states ("none" without a job) and "parked"
 * while the retry timer held the bot. Once delivered, the bot leaves the timer.
 */
async function statesWhileWaiting(concurrency: number): Promise<Set<string>> {
  const worker = startWorker(stack, { concurrency, backoffScale: 1 });
  try {
    const bot = await stack.platform.createBot();
    const r = await startReceiver({
      answer: (_req, n) => (n === 1 ? { status: 429, headers: { "retry-after": "2" } } : undefined),
    });
    receivers.push(r);
    await botClient(stack.gatewayUrl, bot.token)("setWebhook", { url: r.url });
    await stack.platform.pushUpdate(bot.id, userMessage(1, "later"));
    await r.waitFor((got) => got.length === 1);
    const states = new Set<string>();
    const job = () => queues.forBot(String(bot.id)).getJob(drainJobId(String(bot.id)));
    const botId = String(bot.id);
    await eventually(async () => {
      if (r.received.length >= 2) return true;
      states.add((await (await job())?.getState()) ?? "none");
      if ((await stack.redis.zscore(keys.webhookRetries(), botId)) !== null) states.add("parked");
      return false;
    }, 10_000);
    expect(r.received[1]!.update.update_id).toBe(r.received[0]!.update.update_id);
    await eventually(
      async () =>
        (await stack.redis.zscore(keys.webhookRetries(), botId)) === null &&
        (await stack.redis.hget(keys.webhookStatus(botId), "retry_at")) === null,
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
