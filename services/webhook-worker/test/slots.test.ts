import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { botClient, startReceiver, startStack, userMessage, type Receiver, type TestStack } from "@starpost/testkit";
import { createRedis } from "@starpost/runtime";
import { createDeliveryQueue, drainJobId, type DeliveryQueues } from "@starpost/update-log";
import { eventually, startWorker } from "./worker-harness.ts";

/**
 * A drain waiting for a retry due within 10 s keeps its slot only while its queue shard has
 * slots to spare; on a crowded shard it moves its job to delayed, so failing bots never hold
 * every slot while healthy bots wait.
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
 * A bot whose webhook first answers 429 with Retry-After: 2, then 200; the drain job's states
 * seen from the first request until the second.
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
    await eventually(async () => {
      if (r.received.length >= 2) return true;
      const state = await (await job())?.getState();
      if (state) states.add(state);
      return false;
    }, 10_000);
    expect(r.received[1]!.update.update_id).toBe(r.received[0]!.update.update_id);
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
    expect(states.has("delayed")).toBe(false);
  });

  it("gives its slot up on a crowded shard and comes back when the retry is due", async () => {
    // 8 slots over 8 shards: one per shard, which this drain alone fills past half.
    const states = await statesWhileWaiting(8);
    expect(states.has("delayed")).toBe(true);
  });
});
