import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { botClient, http, startStack, type TestStack } from "@starpost/testkit";

let stack: TestStack;
beforeAll(async () => {
  stack = await startStack();
});
afterAll(() => stack.close());

describe("answerCallbackQuery", () => {
  it("acknowledges a button press in every encoding, the optional fields read and ignored", async () => {
    const bot = await stack.platform.createBot();
    const call = botClient(stack.gatewayUrl, bot.token);
    const json = await call("answerCallbackQuery", {
      callback_query_id: "4382bfdwdsb323b2d9",
      text: "Done",
      show_alert: true,
      cache_time: 5,
    });
    expect(json).toMatchObject({ status: 200, body: { ok: true, result: true } });
    const query = await http(
      stack.gatewayUrl,
      "GET",
      `/bot${bot.token}/answercallbackquery?callback_query_id=17&cache_time=-3&show_alert=1`,
    );
    expect(query).toMatchObject({ status: 200, body: { ok: true, result: true } });
    const form = await http(stack.gatewayUrl, "POST", `/bot${bot.token}/answerCallbackQuery`, {
      body: "callback_query_id=9&url=https%3A%2F%2Ft.me%2Fx_bot%3Fstart%3Dq",
      contentType: "application/x-www-form-urlencoded",
    });
    expect(form).toMatchObject({ status: 200, body: { ok: true, result: true } });
  });

  it("requires callback_query_id", async () => {
    const bot = await stack.platform.createBot();
    const call = botClient(stack.gatewayUrl, bot.token);
    for (const params of [{}, { callback_query_id: "" }, { text: "no id" }]) {
      expect(await call("answerCallbackQuery", params)).toMatchObject({
        status: 400,
        body: { ok: false, error_code: 400, description: 'Bad Request: parameter "callback_query_id" is required' },
      });
    }
  });
});
