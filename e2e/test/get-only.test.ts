import { describe, expect, it } from "vitest";
import { http } from "@starpost/testkit";
import { botAndUser, pay, push, useE2E, textFrom } from "./support.ts";

// A client in the plainest style: every call a GET with its parameters in the query string, JSON
// values serialized into it, negative offsets for "the newest only".

const e2e = useE2E();

describe("a bot that calls everything as GET with a query string", () => {
  it("polls with negative offsets, sells an invoice and sets and deletes a webhook", async () => {
    const { bot, user } = await botAndUser(e2e);
    const get = async (method: string, params: Record<string, unknown> = {}) => {
      const query = new URLSearchParams(
        Object.entries(params).map(([k, v]) => [k, typeof v === "string" ? v : JSON.stringify(v)]),
      );
      const res = await http(e2e.apiRoot, "GET", `/bot${bot.token}/${method}?${query}`);
      return res.body;
    };

    expect((await get("getMe")).result).toMatchObject({ id: bot.id, is_bot: true });

    const ids = await push(
      e2e,
      bot.id,
      [1, 2, 3, 4, 5].map((n) => textFrom(user, `m${n}`)),
    );
    const newest = await get("getUpdates", { offset: -2 });
    expect(newest.result.map((u: { update_id: number }) => u.update_id)).toEqual(ids.slice(3));
    // The negative offset forgot the three older ones for good.
    expect((await get("getUpdates", { offset: 0 })).result.map((u: { update_id: number }) => u.update_id)).toEqual(
      ids.slice(3),
    );
    expect((await get("getUpdates", { offset: ids[4]! + 1 })).result).toEqual([]);

    const sent = await get("sendInvoice", {
      chat_id: user.id,
      title: "Stars pack",
      description: "Thirty stars",
      payload: "get-only",
      currency: "XTR",
      prices: [{ label: "Pack", amount: 30 }],
      reply_markup: { inline_keyboard: [[{ text: "Pay 30 stars", pay: true }]] },
    });
    expect(sent.result).toMatchObject({ chat: { id: user.id }, invoice: { currency: "XTR", total_amount: 30 } });

    const paying = pay(e2e, bot.id, user, sent.result.message_id);
    let query: { id: string } | undefined;
    let offset = ids[4]! + 1;
    while (!query) {
      const { result } = await get("getUpdates", {
        offset,
        timeout: 5,
        allowed_updates: ["message", "pre_checkout_query"],
      });
      for (const u of result) {
        offset = u.update_id + 1;
        if (u.pre_checkout_query) query = u.pre_checkout_query;
      }
    }
    expect((await get("answerPreCheckoutQuery", { pre_checkout_query_id: query.id, ok: "true" })).result).toBe(true);
    expect((await paying).status).toBe("paid");
    const paid = await get("getUpdates", { offset, timeout: 5 });
    expect(paid.result[0].message.successful_payment).toMatchObject({ invoice_payload: "get-only", total_amount: 30 });

    expect(await get("setWebhook", { url: "http://127.0.0.1:9/get-hook", max_connections: "5" })).toEqual({
      ok: true,
      result: true,
      description: "Webhook was set",
    });
    expect((await get("getWebhookInfo")).result).toMatchObject({
      url: "http://127.0.0.1:9/get-hook",
      max_connections: 5,
      allowed_updates: ["message", "pre_checkout_query"],
    });
    expect(await get("deleteWebhook", { drop_pending_updates: "true" })).toEqual({
      ok: true,
      result: true,
      description: "Webhook was deleted",
    });
    expect((await get("getWebhookInfo")).result).toEqual({
      url: "",
      has_custom_certificate: false,
      pending_update_count: 0,
      allowed_updates: ["message", "pre_checkout_query"],
    });
    expect((await get("getMyStarBalance")).result).toMatchObject({ amount: 30 });
  });
});
