import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { keys } from "@starpost/shared";
import { createRedis, loadWebhook } from "@starpost/runtime";
import { botClient, startStack, type TestStack } from "@starpost/testkit";
import { recordFailure } from "../src/drain/status.ts";

let stack: TestStack;
let redis: ReturnType<typeof createRedis>;

beforeAll(async () => {
  stack = await startStack();
  // The worker's Lua commands are defined on every client the Redis factory makes.
  redis = createRedis({ url: stack.redisServer.url, logger: stack.logger, role: "stale-error-test" });
});
afterAll(async () => {
  await redis.quit();
  await stack.close();
});

const URL_A = "http://127.0.0.1:9/a";
const URL_B = "http://127.0.0.1:9/b";
const failure = (generation: string, message: string) => ({
  generation,
  updateId: 1,
  message,
  retry: { fails: 1, delay: 2, wakeupAt: Date.now() + 2000 },
  now: Date.now(),
  attempt: { update_ids: [1], error: message, duration_ms: 5 },
});

describe("a delivery failure that lands after the webhook changed", () => {
  it("is not recorded once the webhook is deleted, nor once it is set anew", async () => {
    const bot = await stack.platform.createBot();
    const api = botClient(stack.gatewayUrl, bot.token);
    const botId = String(bot.id);
    expect((await api("setWebhook", { url: URL_A })).body.ok).toBe(true);
    const first = (await loadWebhook(redis, botId))!.generation;

    // A drain's request to the first webhook fails after deleteWebhook answered.
    await api("deleteWebhook");
    await recordFailure(redis, botId, failure(first, "Connection refused"));
    expect((await api("getWebhookInfo")).body.result).toEqual({
      url: "",
      has_custom_certificate: false,
      pending_update_count: 0,
    });

    // ... or after a new setWebhook answered: the new webhook shows no error of the old one.
    await redis.del(keys.webhookSetLimit(botId)); // the once-a-second limit is not under test here
    expect((await api("setWebhook", { url: URL_B })).body.ok).toBe(true);
    const second = (await loadWebhook(redis, botId))!.generation;
    expect(second).not.toBe(first);
    await recordFailure(redis, botId, failure(first, "Connection refused"));
    expect((await api("getWebhookInfo")).body.result.last_error_message).toBeUndefined();

    // A failure of the current webhook is recorded.
    await recordFailure(redis, botId, failure(second, "Read timeout expired"));
    expect((await api("getWebhookInfo")).body.result.last_error_message).toBe("Read timeout expired");
  });
});
