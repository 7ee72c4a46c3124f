import { afterAll, beforeAll, expect, it } from "vitest";
import { botClient, startStack, type TestStack } from "@starpost/testkit";

let stack: TestStack;
beforeAll(async () => {
  stack = await startStack();
});
afterAll(() => stack.close());

it("getAvailableGifts answers the Gifts object with no gifts, whatever the name's case", async () => {
  const bot = await stack.platform.createBot();
  const call = botClient(stack.gatewayUrl, bot.token);
  expect((await call("getAvailableGifts")).body).toEqual({ ok: true, result: { gifts: [] } });
  expect((await call("getavailablegifts", { unused: 1 })).body).toEqual({ ok: true, result: { gifts: [] } });
});
