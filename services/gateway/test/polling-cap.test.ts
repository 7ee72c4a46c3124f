import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { keys } from "@starpost/shared";
import { MAX_PENDING_UPDATES } from "@starpost/update-log";
import { encodeEntry, startStack, userMessage, type TestStack, getUpdates, ids, metric } from "@starpost/testkit";

let stack: TestStack;
beforeAll(async () => {
  stack = await startStack();
});
afterAll(async () => {
  await stack?.close();
});

describe("at most 100,000 pending updates per bot", () => {
  it("drops the excess, counts it in metrics, and frees the memory once confirmed", async () => {
    const bot = await stack.platform.createBot();
    // Fill the log the fast way (pipelined XADDs of entries shaped by encodeEntry).
    const log = keys.updateLog(bot.id);
    const expires = Date.now() + 86_400_000;
    for (let from = 1; from <= MAX_PENDING_UPDATES; from += 10_000) {
      const pipe = stack.redis.pipeline();
      for (let id = from; id < from + 10_000; id++) {
        const json = `{"update_id":${id},"message":{"message_id":${id}}}`;
        pipe.xadd(log, `${id}-0`, ...encodeEntry({ kind: "message", queue: "c1", expiresAt: expires, json }));
      }
      await pipe.exec();
    }
    await stack.redis.set(keys.updateSeq(bot.id), MAX_PENDING_UPDATES);
    const before = await metric(stack.updatesUrl, "starpost_updates_dropped_total", 'reason="too_many_pending"');

    const res = await stack.platform.pushUpdate(bot.id, userMessage(1, "one too many"));
    expect(res.body.result).toEqual({ update_id: null, dropped: "too_many_pending" });
    expect(await metric(stack.updatesUrl, "starpost_updates_dropped_total", 'reason="too_many_pending"')).toBe(
      before + 1,
    );
    expect(await stack.redis.xlen(log)).toBe(MAX_PENDING_UPDATES);

    // A negative offset keeps the newest ones; confirming the rest makes room again.
    expect(ids(await getUpdates(stack.gatewayUrl, bot.token, { offset: -2 }))).toEqual([99_999, 100_000]);
    const memory = await stack.redis.memory("USAGE", log);
    expect(memory).toBeLessThan(10_000);
    const after = await stack.platform.pushUpdate(bot.id, userMessage(1, "room again"));
    expect(after.body.result).toEqual({ update_id: 100_001 });
  }, 60_000);
});
