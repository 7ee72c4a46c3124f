import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  botClient,
  metricIn,
  startReceiver,
  startStack,
  userMessage,
  type Receiver,
  type TestStack,
  appendUpdate,
} from "@starpost/testkit";
import { keys } from "@starpost/shared";
import { byChat, eventually, startWorker } from "./worker-harness.ts";

let stack: TestStack;
let worker: ReturnType<typeof startWorker>;
const receivers: Receiver[] = [];

beforeAll(async () => {
  stack = await startStack();
  // Retry delays scaled by 0.01 (2 s -> 20 ms); answer timeout short enough to test it.
  worker = startWorker(stack, { backoffScale: 0.01, sender: { timeoutMs: 1500 } });
});
afterAll(async () => {
  await worker.close();
  for (const r of receivers) await r.close();
  await stack.close();
});

async function newBot() {
  const bot = await stack.platform.createBot();
  return { ...bot, api: botClient(stack.gatewayUrl, bot.token) };
}
async function receiver(opts: Parameters<typeof startReceiver>[0] = {}) {
  const r = await startReceiver(opts);
  receivers.push(r);
  return r;
}
/** `n` messages spread over `chats` chats (chat ids 1..chats), pushed in one platform call. */
function messages(n: number, chats: number) {
  return Array.from({ length: n }, (_, i) => userMessage(1 + (i % chats), `m${i}`));
}
/** This worker's count of a metric now (tests compare it with the count before their own work). */
async function counted(name: string, labels = "") {
  return metricIn(await worker.registry.render(), name, labels);
}
function expectInOrder(got: any[], chats: number, perChat: number) {
  const seen = byChat(got);
  expect(seen.size).toBe(chats);
  for (const ids of seen.values()) {
    expect(ids).toHaveLength(perChat);
    expect([...ids].sort((a, b) => a - b)).toEqual(ids);
  }
}

describe("webhook delivery", () => {
  it("POSTs each update as JSON with the secret in both headers, then confirms it", async () => {
    const bot = await newBot();
    const r = await receiver();
    expect((await bot.api("setWebhook", { url: r.url, secret_token: "s3cr3t_-X" })).body).toEqual({
      ok: true,
      result: true,
      description: "Webhook was set",
    });
    const pushed = await stack.platform.pushUpdate(bot.id, userMessage(42, "hello"));
    await r.waitFor((got) => got.length === 1);
    const [req] = r.received;
    expect(req!.headers["content-type"]).toBe("application/json");
    expect(req!.headers["x-platform-bot-api-secret-token"]).toBe("s3cr3t_-X");
    expect(req!.headers["x-telegram-bot-api-secret-token"]).toBe("s3cr3t_-X");
    expect(req!.update.update_id).toBe(pushed.body.result.update_id);
    expect(req!.update.message).toMatchObject({ chat: { id: 42 }, text: "hello" });
    expect(Object.keys(req!.update)).toEqual(["update_id", "message"]);
    await eventually(async () => (await bot.api("getWebhookInfo")).body.result.pending_update_count === 0);
  });

  it("sends no secret header when none is set", async () => {
    const bot = await newBot();
    const r = await receiver();
    await bot.api("setWebhook", { url: r.url });
    await stack.platform.pushUpdate(bot.id, userMessage(7, "x"));
    await r.waitFor((got) => got.length === 1);
    expect(r.received[0]!.headers["x-platform-bot-api-secret-token"]).toBeUndefined();
    expect(r.received[0]!.headers["x-telegram-bot-api-secret-token"]).toBeUndefined();
  });

  it("keeps each chat's order and delivers everything to a receiver that fails 25 times first", async () => {
    const bot = await newBot();
    const r = await receiver({ answer: (_req, n) => (n <= 25 ? { status: 500 } : undefined) });
    await bot.api("setWebhook", { url: r.url, max_connections: 10 });
    await stack.platform.pushUpdate(bot.id, messages(300, 10));
    await r.waitFor((got) => got.length >= 325, 30_000);
    const ok = r.received.slice(25).map((g) => g.update);
    expectInOrder(ok, 10, 30);
    const info = (await bot.api("getWebhookInfo")).body.result;
    expect(info.last_error_message).toBe("Wrong response from the webhook: 500 Internal Server Error");
    expect(Math.abs(info.last_error_date - Date.now() / 1000)).toBeLessThan(60);
    await eventually(async () => (await bot.api("getWebhookInfo")).body.result.pending_update_count === 0);
  });

  it("sends one request per chat at a time, up to max_connections, and one at all until a success", async () => {
    const bot = await newBot();
    const r = await receiver({ answer: (_req, n) => (n <= 3 ? { status: 500, delayMs: 20 } : { delayMs: 20 }) });
    await bot.api("setWebhook", { url: r.url, max_connections: 5 });
    await stack.platform.pushUpdate(bot.id, messages(100, 10));
    await r.waitFor((got) => got.length >= 103 && got.every((g) => g.doneAt !== undefined), 20_000);
    const overlapping = (g: (typeof r.received)[number]) => r.received.filter((o) => o.at <= g.at && o.doneAt! > g.at);
    // The three failures and the first success went alone.
    for (const g of r.received.slice(0, 4)) expect(overlapping(g)).toHaveLength(1);
    let most = 0;
    for (const g of r.received) {
      const open = overlapping(g);
      most = Math.max(most, open.length);
      const chats = open.map((o) => o.update.message.chat.id);
      expect(new Set(chats).size).toBe(chats.length);
    }
    expect(most).toBeGreaterThan(1);
    expect(most).toBeLessThanOrEqual(5);
  });

  it("shows the error while the receiver is down and delivers everything once it is back", async () => {
    const bot = await newBot();
    const first = await receiver();
    const port = first.port;
    await first.close();
    await bot.api("setWebhook", { url: first.url });
    await stack.platform.pushUpdate(bot.id, messages(40, 4));
    await eventually(
      async () => (await bot.api("getWebhookInfo")).body.result.last_error_message === "Connection refused",
    );
    const down = (await bot.api("getWebhookInfo")).body.result;
    expect(down.pending_update_count).toBe(40);
    const back = await receiver({ port });
    await back.waitFor((got) => got.length >= 40, 30_000);
    expectInOrder(
      back.received.map((g) => g.update),
      4,
      10,
    );
    await eventually(async () => (await bot.api("getWebhookInfo")).body.result.pending_update_count === 0);
    // The last error stays until the webhook is set or deleted again.
    expect((await bot.api("getWebhookInfo")).body.result.last_error_message).toBe("Connection refused");
  });

  it("waits as long as Retry-After asks", async () => {
    const bot = await newBot();
    const r = await receiver({
      answer: (_req, n) => (n === 1 ? { status: 429, headers: { "retry-after": "1" } } : undefined),
    });
    await bot.api("setWebhook", { url: r.url });
    await stack.platform.pushUpdate(bot.id, userMessage(5, "later"));
    await r.waitFor((got) => got.length === 2);
    expect(r.received[1]!.at - r.received[0]!.at).toBeGreaterThanOrEqual(950);
    expect((await bot.api("getWebhookInfo")).body.result.last_error_message).toBe(
      "Wrong response from the webhook: 429 Too Many Requests",
    );
  });

  it("gives up on an answer after the timeout with 'Read timeout expired'", async () => {
    const bot = await newBot();
    const r = await receiver({ answer: (_req, n) => (n === 1 ? { delayMs: 2500 } : undefined) });
    await bot.api("setWebhook", { url: r.url });
    await stack.platform.pushUpdate(bot.id, userMessage(6, "slow"));
    await r.waitFor((got) => got.length >= 2, 10_000);
    expect((await bot.api("getWebhookInfo")).body.result.last_error_message).toBe("Read timeout expired");
  });

  it("drops an update whose lifetime ends before its next try, and counts it", async () => {
    const bot = await newBot();
    const r = await receiver({ answer: () => ({ status: 503, headers: { "retry-after": "5" } }) });
    const dropped = await counted("starpost_webhook_dropped_total");
    await bot.api("setWebhook", { url: r.url });
    // A callback query (150 s lifetime) created 149 s ago: the 5 s Retry-After outlives it.
    await appendUpdate(
      stack,
      String(bot.id),
      "callback_query",
      { id: "q1", from: { id: 9, is_bot: false, first_name: "A" }, chat_instance: "1", data: "x" },
      Date.now() - 149_000,
    );
    await stack.platform.pushUpdate(bot.id, userMessage(9, "kick"));
    await eventually(async () => (await bot.api("getWebhookInfo")).body.result.pending_update_count === 1);
    expect(r.received.filter((g) => g.update.callback_query)).toHaveLength(1);
    await eventually(
      async () => (await counted("starpost_webhook_dropped_total")) === dropped + 1,
      10_000,
      "the drop to be counted",
    );
  });

  it("runs a method found in a 2xx answer for the bot (sendInvoice)", async () => {
    const bot = await newBot();
    const invoice = {
      method: "sendInvoice",
      chat_id: 77,
      title: "Pack",
      description: "A pack",
      payload: "from-webhook-answer",
      currency: "XTR",
      prices: [{ label: "Pack", amount: 5 }],
    };
    const r = await receiver({ answer: (_req, n) => (n === 1 ? { body: JSON.stringify(invoice) } : undefined) });
    const ran = await counted("starpost_webhook_reply_methods_total", 'result="ok"');
    await bot.api("setWebhook", { url: r.url });
    await stack.platform.pushUpdate(bot.id, userMessage(77, "buy"));
    await r.waitFor((got) => got.length === 1);
    await eventually(
      async () => Object.values(await stack.redis.hgetall(keys.messages(bot.id))).some((m) => m.includes("Pack")),
      10_000,
      "the invoice message",
    );
    // The worker sent the bot's record with the call: the message is from the bot.
    const from = { id: bot.id, is_bot: true, first_name: bot.first_name, username: bot.username };
    const stored = Object.values(await stack.redis.hgetall(keys.messages(bot.id))).find((m) => m.includes("Pack"));
    expect(stored).toContain(`"from":${JSON.stringify(from)}`);
    // The worker counts the method once its answer is back, which may be after the message is stored.
    await eventually(
      async () => (await counted("starpost_webhook_reply_methods_total", 'result="ok"')) === ran + 1,
      10_000,
      "the method to be counted",
    );
  });

  it("refuses to run get*, setWebhook and deleteWebhook found in an answer", async () => {
    const bot = await newBot();
    const r = await receiver({ answer: () => ({ body: JSON.stringify({ method: "deleteWebhook" }) }) });
    const refused = await counted("starpost_webhook_reply_methods_total", 'result="refused"');
    await bot.api("setWebhook", { url: r.url });
    await stack.platform.pushUpdate(bot.id, [userMessage(3, "a"), userMessage(3, "b")]);
    await r.waitFor((got) => got.length === 2);
    // Both answers were looked at (and refused) before the webhook is checked.
    await eventually(
      async () => (await counted("starpost_webhook_reply_methods_total", 'result="refused"')) === refused + 2,
      10_000,
      "both answers to be refused",
    );
    expect((await bot.api("getWebhookInfo")).body.result.url).toBe(r.url);
  });

  it("stops delivering after deleteWebhook, leaves the rest pending, and hands it to the next webhook", async () => {
    const bot = await newBot();
    const r = await receiver({ answer: () => ({ delayMs: 50 }) });
    await bot.api("setWebhook", { url: r.url, max_connections: 1 });
    await stack.platform.pushUpdate(bot.id, messages(100, 1));
    await r.waitFor((got) => got.length >= 3);
    expect((await bot.api("deleteWebhook")).body.description).toBe("Webhook was deleted");
    const pending = (await bot.api("getWebhookInfo")).body.result.pending_update_count;
    expect(pending).toBeGreaterThan(0);
    const next = await receiver();
    await stack.redis.del(keys.webhookSetLimit(bot.id)); // instead of waiting out the 1 s setWebhook limit
    expect((await bot.api("setWebhook", { url: next.url })).body.ok).toBe(true);
    await eventually(
      async () => (await bot.api("getWebhookInfo")).body.result.pending_update_count === 0,
      20_000,
      "the rest to reach the next webhook",
    );
    // One drain runs per bot: the next webhook's drain starts only after the old one has ended, so
    // the old receiver was sent nothing after the next one's first update.
    const firstNext = Math.min(...next.received.map((g) => g.at));
    expect(r.received.filter((g) => g.at > firstNext)).toEqual([]);
    expect(r.received.length).toBeLessThan(100);
    const ids = new Set([...r.received, ...next.received].map((g) => g.update.update_id));
    expect(ids.size).toBe(100);
  });
});
