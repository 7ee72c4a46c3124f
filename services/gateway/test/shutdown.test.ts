import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { keys } from "@starpost/shared";
import { botClient, eventually, startStack, userMessage, type TestStack } from "@starpost/testkit";

let stack: TestStack;
beforeAll(async () => {
  stack = await startStack();
});
afterAll(() => stack.close());

describe("gateway shutdown", () => {
  it("answers a held getUpdates at once with an empty list, frees the bot's poll slot, and loses nothing", async () => {
    const bot = await stack.platform.createBot();
    const call = botClient(stack.gatewayUrl, bot.token);
    await stack.platform.pushUpdate(bot.id, userMessage(9, "before"));
    const first = await call("getUpdates");
    expect(first.body.result.map((u: { message: { text: string } }) => u.message.text)).toEqual(["before"]);
    // The held poll confirms "before" (offset) and waits for more.
    const held = call("getUpdates", { offset: first.body.result[0].update_id + 1, timeout: 30 });
    await eventually(
      async () => (await stack.redis.get(keys.pollOwner(bot.id))) !== null,
      10_000,
      "the poll to be held",
    );
    const started = Date.now();
    const [answer] = await Promise.all([held, stack.apps[0]!.close()]);
    expect(Date.now() - started).toBeLessThan(3000);
    expect(answer.body).toEqual({ ok: true, result: [] });
    // The updates service let the held poll go, so the next poll (on any gateway) is no conflict.
    await eventually(
      async () => (await stack.redis.get(keys.pollOwner(bot.id))) === null,
      10_000,
      "the poll slot to be freed",
    );

    // Another gateway on the same services finds the bot's log intact: what came after is there.
    const other = await startStack({ redisServer: stack.redisServer });
    try {
      await other.platform.pushUpdate(bot.id, userMessage(9, "after"));
      const got = await botClient(other.gatewayUrl, bot.token)("getUpdates", { timeout: 0 });
      expect(got.body.result.map((u: { message: { text: string } }) => u.message.text)).toEqual(["after"]);
    } finally {
      await other.close();
    }
  });
});
