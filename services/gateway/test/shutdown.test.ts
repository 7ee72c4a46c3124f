import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { botClient, startStack, userMessage, type TestStack } from "@starpost/testkit";

let stack: TestStack;
beforeAll(async () => {
  stack = await startStack();
});
afterAll(() => stack.close());

describe("gateway shutdown", () => {
  it("answers a held getUpdates at once with an empty list, and the updates stay pending", async () => {
    const bot = await stack.platform.createBot();
    const call = botClient(stack.gatewayUrl, bot.token);
    const held = call("getUpdates", { timeout: 30 });
    await new Promise((r) => setTimeout(r, 300));
    const started = Date.now();
    const [answer] = await Promise.all([held, stack.apps[0]!.close()]);
    expect(Date.now() - started).toBeLessThan(3000);
    expect(answer.body).toEqual({ ok: true, result: [] });

    // Another gateway on the same services still finds the bot's log intact.
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
