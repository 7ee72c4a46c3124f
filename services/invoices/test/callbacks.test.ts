import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { appendUpdate, botClient, http, startStack, type TestStack } from "@starpost/testkit";

let stack: TestStack;
beforeAll(async () => {
  stack = await startStack();
});
afterAll(() => stack.close());

const user = { id: 501, is_bot: false, first_name: "Ann" };
const query = (id: string | number) => ({ id, from: user, chat_instance: "1", data: "x" });
const QUERY_ID_INVALID = {
  status: 400,
  body: {
    ok: false,
    error_code: 400,
    description: "Bad Request: query is too old and response timeout expired or query ID is invalid",
  },
};

describe("answerCallbackQuery", () => {
  it("answers true for a callback query pushed as an update, in every encoding, its id read with to_integer<int64>", async () => {
    const bot = await stack.platform.createBot();
    for (const id of ["4382", 17, "0009"]) {
      const pushed = await stack.platform.pushUpdate(bot.id, { callback_query: query(id) });
      expect(pushed.status).toBe(200);
    }
    const call = botClient(stack.gatewayUrl, bot.token);
    // "4382bfdwdsb323b2d9" reads as 4382; "0009" was opened as 9.
    const json = await call("answerCallbackQuery", {
      callback_query_id: "4382bfdwdsb323b2d9",
      text: "Done",
      show_alert: true,
      cache_time: 5,
    });
    expect(json).toMatchObject({ status: 200, body: { ok: true, result: true } });
    const get = await http(
      stack.gatewayUrl,
      "GET",
      `/bot${bot.token}/answercallbackquery?callback_query_id=17&cache_time=-3&show_alert=1`,
    );
    expect(get).toMatchObject({ status: 200, body: { ok: true, result: true } });
    const form = await http(stack.gatewayUrl, "POST", `/bot${bot.token}/answerCallbackQuery`, {
      body: "callback_query_id=9&url=https%3A%2F%2Ft.me%2Fx_bot%3Fstart%3Dq",
      contentType: "application/x-www-form-urlencoded",
    });
    expect(form).toMatchObject({ status: 200, body: { ok: true, result: true } });
  });

  it("answers the reference's QUERY_ID_INVALID text for an id that names no live query, a missing one included", async () => {
    const bot = await stack.platform.createBot();
    await stack.platform.pushUpdate(bot.id, { callback_query: query("77") });
    const other = await stack.platform.createBot();
    const call = botClient(stack.gatewayUrl, bot.token);
    for (const params of [
      {},
      { callback_query_id: "" },
      { text: "no id" },
      { callback_query_id: "abc" },
      { callback_query_id: "78" },
    ])
      expect({ params, answer: await call("answerCallbackQuery", params) }).toMatchObject({
        params,
        answer: QUERY_ID_INVALID,
      });
    // Another bot's query is not this bot's.
    expect(
      await botClient(stack.gatewayUrl, other.token)("answerCallbackQuery", { callback_query_id: "77" }),
    ).toMatchObject(QUERY_ID_INVALID);
  });

  it("refuses a query whose update's lifetime (150 s) has ended", async () => {
    const bot = await stack.platform.createBot();
    const now = Date.now();
    await appendUpdate(stack, String(bot.id), "callback_query", query("5"), now - 151_000);
    await appendUpdate(stack, String(bot.id), "callback_query", query("6"), now - 149_000);
    const call = botClient(stack.gatewayUrl, bot.token);
    expect(await call("answerCallbackQuery", { callback_query_id: "5" })).toMatchObject(QUERY_ID_INVALID);
    expect(await call("answerCallbackQuery", { callback_query_id: "6" })).toMatchObject({ status: 200 });
  });
});
