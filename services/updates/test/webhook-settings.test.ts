import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildApp } from "@starpost/updates";
import { keys } from "@starpost/shared";
import { createLogger, createRedis } from "@starpost/runtime";
import { createDeliveryQueue } from "@starpost/update-log";
import { INTERNAL_TOKEN_HEADER } from "@starpost/http";

const TOKEN = "settings-test-internal-token";
import { botClient, http, startStack, userMessage, type TestStack, waitingPoll } from "@starpost/testkit";

let stack: TestStack;
beforeAll(async () => {
  stack = await startStack();
});
afterAll(() => stack.close());

/** Lifts the once-a-second setWebhook limit (tested on its own below) instead of waiting it out. */
const liftSetLimit = (botId: number | string) => stack.redis.del(keys.webhookSetLimit(botId));
async function newBot() {
  const bot = await stack.platform.createBot();
  return { ...bot, api: botClient(stack.gatewayUrl, bot.token) };
}
const bad = (description: string) => ({ ok: false, error_code: 400, description });
// Nothing listens there; no worker runs in this file, so nothing is delivered anyway.
const URL_A = "http://127.0.0.1:9/hook";

describe("setWebhook / deleteWebhook / getWebhookInfo", () => {
  it("answers the reference descriptions", async () => {
    const { id, api } = await newBot();
    expect((await api("setWebhook", { url: URL_A })).body).toEqual({
      ok: true,
      result: true,
      description: "Webhook was set",
    });
    await liftSetLimit(id);
    expect((await api("setWebhook", { url: URL_A })).body.description).toBe("Webhook is already set");
    expect((await api("deleteWebhook")).body).toEqual({ ok: true, result: true, description: "Webhook was deleted" });
    expect((await api("deleteWebhook")).body.description).toBe("Webhook is already deleted");
    expect((await api("setWebhook", { url: "" })).body.description).toBe("Webhook is already deleted");
    await liftSetLimit(id);
    await api("setWebhook", { url: URL_A });
    expect((await api("setWebhook", { url: "" })).body.description).toBe("Webhook was deleted");
  });

  it("answers 429 retry after 1 to a second URL within a second", async () => {
    const { id, api } = await newBot();
    await api("setWebhook", { url: URL_A });
    const r = await api("setWebhook", { url: "http://127.0.0.1:9/other" });
    expect(r.status).toBe(429);
    expect(r.body).toEqual({
      ok: false,
      error_code: 429,
      description: "Too Many Requests: retry after 1",
      parameters: { retry_after: 1 },
    });
    expect(r.headers["retry-after"]).toBe("1");
    // The limit is a key that expires after a second.
    expect(await stack.redis.pttl(keys.webhookSetLimit(id))).toBeGreaterThan(0);
    expect(await stack.redis.pttl(keys.webhookSetLimit(id))).toBeLessThanOrEqual(1000);
    await liftSetLimit(id);
    expect((await api("setWebhook", { url: "http://127.0.0.1:9/other" })).body.description).toBe("Webhook was set");
  });

  it("reads allowed_updates as the reference: a non-string keeps the setting; a delete that finds no webhook still saves it", async () => {
    const bot = await newBot();
    const allowed = async () => (await stack.redis.smembers(keys.allowedUpdates(bot.id))).sort();
    // No webhook, nothing dropped: the "already deleted" branch saves allowed_updates (Client.cpp at 01a3679, line 15762).
    const none = await bot.api("deleteWebhook", { allowed_updates: ["callback_query", "message"] });
    expect(none.body.description).toBe("Webhook is already deleted");
    expect(await allowed()).toEqual(["callback_query", "message"]);
    // An element that is not a string keeps the previous setting (get_allowed_update_types, line 16913).
    await bot.api("deleteWebhook", { allowed_updates: ["poll", 5] });
    expect(await allowed()).toEqual(["callback_query", "message"]);
    // Naming exactly the default set is the default.
    await bot.api("deleteWebhook", { allowed_updates: [] });
    expect(await allowed()).toEqual([]);
    // A webhook removed: the branch that saves it is not taken.
    await bot.api("setWebhook", { url: URL_A });
    await bot.api("deleteWebhook", { allowed_updates: ["poll"] });
    expect(await allowed()).toEqual([]);
  });

  it("shows getWebhookInfo keys in the reference order and presence", async () => {
    const bot = await newBot();
    expect((await bot.api("getWebhookInfo")).body).toEqual({
      ok: true,
      result: { url: "", has_custom_certificate: false, pending_update_count: 0 },
    });
    await stack.platform.pushUpdate(bot.id, [userMessage(1, "a"), userMessage(2, "b")]);
    await bot.api("setWebhook", { url: URL_A, max_connections: 7, allowed_updates: ["message", "chat_member"] });
    const info = (await bot.api("getWebhookInfo")).body.result;
    expect(Object.keys(info)).toEqual([
      "url",
      "has_custom_certificate",
      "pending_update_count",
      "max_connections",
      "ip_address",
      "allowed_updates",
    ]);
    expect(info).toEqual({
      url: URL_A,
      has_custom_certificate: false,
      pending_update_count: 2,
      max_connections: 7,
      ip_address: "127.0.0.1",
      allowed_updates: ["message", "chat_member"],
    });
    // The last error appears between pending_update_count and max_connections.
    await stack.redis.hset(`sp:webhook-status:{b:${bot.id}}`, {
      last_error_date: "1700000000",
      last_error_message: "Connection refused",
    });
    expect(Object.keys((await bot.api("getWebhookInfo")).body.result)).toEqual([
      "url",
      "has_custom_certificate",
      "pending_update_count",
      "last_error_date",
      "last_error_message",
      "max_connections",
      "ip_address",
      "allowed_updates",
    ]);
    // Set and delete clear it.
    await bot.api("deleteWebhook");
    expect((await bot.api("getWebhookInfo")).body.result).toEqual({
      url: "",
      has_custom_certificate: false,
      pending_update_count: 2,
      allowed_updates: ["message", "chat_member"],
    });
  });

  it("clamps max_connections to 1..100 (default 40) and shows a given ip_address", async () => {
    // Present values go through the reference's to_integer: "many" is 0, clamped to 1.
    for (const [given, shown] of [
      [undefined, 40],
      [0, 1],
      [-5, 1],
      [1000, 100],
      ["17", 17],
      ["many", 1],
      ["", 40],
    ] as const) {
      const { api } = await newBot();
      await api("setWebhook", { url: URL_A, ...(given === undefined ? {} : { max_connections: given }) });
      expect({ given, shown: (await api("getWebhookInfo")).body.result.max_connections }).toEqual({ given, shown });
    }
    const { api } = await newBot();
    await api("setWebhook", { url: URL_A, ip_address: "1.2.3.4" });
    expect((await api("getWebhookInfo")).body.result.ip_address).toBe("1.2.3.4");
  });

  it("refuses bad URLs, secret tokens and IP addresses with the reference texts", async () => {
    const { api } = await newBot();
    const cases: [Record<string, unknown>, string][] = [
      [{ url: "ftp://127.0.0.1/hook" }, "Bad Request: invalid webhook URL specified"],
      [{ url: "http://" }, "Bad Request: invalid webhook URL specified"],
      [{ url: "http://127.0.0.1:99999/x" }, "Bad Request: invalid webhook URL specified"],
      [{ url: "not a url at all" }, "Bad Request: invalid webhook URL specified"],
      [{ url: URL_A, secret_token: "a".repeat(257) }, "Bad Request: secret token is too long"],
      [{ url: URL_A, secret_token: "abc def" }, "Bad Request: secret token contains unallowed characters"],
      [{ url: URL_A, secret_token: "ключ" }, "Bad Request: secret token contains unallowed characters"],
      [{ url: URL_A, ip_address: "300.1.1.1" }, "Bad Request: bad webhook: Invalid IP address specified"],
      // td's parse_url takes it; resolving the host is what fails (Client.cpp at 01a3679, line 15961).
      [
        { url: "https://1.2.3.256/hook" },
        "Bad Request: bad webhook: Failed to resolve host: Name or service not known",
      ],
      [
        { url: "https://1.2.3.256/hook", secret_token: "a b" },
        "Bad Request: secret token contains unallowed characters",
      ],
    ];
    for (const [params, description] of cases) {
      const r = await api("setWebhook", params);
      expect({ params, status: r.status, body: r.body }).toEqual({ params, status: 400, body: bad(description) });
    }
    expect((await api("getWebhookInfo")).body.result.url).toBe("");
    // A 256-character secret of the allowed characters, http on any port: accepted.
    const ok = await api("setWebhook", { url: "http://127.0.0.1:65535/x", secret_token: "aZ0_-".repeat(51) + "x" });
    expect(ok.body.description).toBe("Webhook was set");
  });

  it("accepts an uploaded certificate, does not use it, and says one came (multipart)", async () => {
    const bot = await newBot();
    const boundary = "----sp";
    const body =
      `--${boundary}\r\nContent-Disposition: form-data; name="url"\r\n\r\n${URL_A}\r\n` +
      `--${boundary}\r\nContent-Disposition: form-data; name="max_connections"\r\n\r\n5\r\n` +
      `--${boundary}\r\nContent-Disposition: form-data; name="certificate"; filename="cert.pem"\r\nContent-Type: application/x-pem-file\r\n\r\n-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n\r\n` +
      `--${boundary}--\r\n`;
    const r = await http(stack.gatewayUrl, "POST", `/bot${bot.token}/setWebhook`, {
      body,
      contentType: `multipart/form-data; boundary=${boundary}`,
    });
    expect(r.body).toEqual({ ok: true, result: true, description: "Webhook was set" });
    const info = (await bot.api("getWebhookInfo")).body.result;
    // JsonWebhookInfo (Client.cpp at 01a3679, line 5957) says a certificate came.
    expect(info).toMatchObject({ url: URL_A, has_custom_certificate: true, max_connections: 5 });
    // A text field named certificate is no file (get_webhook_certificate, line 15976); the same
    // webhook set again without one is a change, and the flag goes.
    await liftSetLimit(bot.id);
    const again = await bot.api("setWebhook", { url: URL_A, max_connections: 5, certificate: "abc" });
    expect(again.body.description).toBe("Webhook was set");
    expect((await bot.api("getWebhookInfo")).body.result.has_custom_certificate).toBe(false);
  });

  it("drops pending updates only when asked", async () => {
    const bot = await newBot();
    await stack.platform.pushUpdate(bot.id, [userMessage(1, "a"), userMessage(1, "b"), userMessage(1, "c")]);
    await bot.api("setWebhook", { url: URL_A });
    expect((await bot.api("getWebhookInfo")).body.result.pending_update_count).toBe(3);
    await bot.api("deleteWebhook", { drop_pending_updates: true });
    expect((await bot.api("getWebhookInfo")).body.result.pending_update_count).toBe(0);
    await stack.platform.pushUpdate(bot.id, userMessage(1, "d"));
    await liftSetLimit(bot.id);
    await bot.api("setWebhook", { url: URL_A, drop_pending_updates: "true" });
    expect((await bot.api("getWebhookInfo")).body.result.pending_update_count).toBe(0);
  });

  it("makes getUpdates answer 409 while set, and work again after deleteWebhook with the pending updates kept", async () => {
    const bot = await newBot();
    await bot.api("setWebhook", { url: URL_A });
    await stack.platform.pushUpdate(bot.id, [userMessage(1, "kept 1"), userMessage(2, "kept 2")]);
    const conflict = await bot.api("getUpdates");
    expect(conflict.status).toBe(409);
    expect(conflict.body.description).toBe(
      "Conflict: can't use getUpdates method while webhook is active; use deleteWebhook to delete the webhook first",
    );
    await bot.api("deleteWebhook");
    const r = await bot.api("getUpdates");
    expect(r.body.ok).toBe(true);
    expect(r.body.result.map((u: any) => u.message.text)).toEqual(["kept 1", "kept 2"]);
  });

  it("ends a waiting getUpdates with 409 terminated by setWebhook", async () => {
    const bot = await newBot();
    const waiting = bot.api("getUpdates", { timeout: 20 });
    await waitingPoll(stack.redis, bot.id);
    await bot.api("setWebhook", { url: URL_A });
    const r = await waiting;
    expect(r.status).toBe(409);
    expect(r.body.description).toBe("Conflict: terminated by setWebhook request");
  });
});

describe("the SSRF guard at setWebhook", () => {
  it("refuses reserved destinations unless private networks are allowed", async () => {
    const logger = createLogger("test", "silent");
    const redis = createRedis({ url: stack.redisServer.url, logger, role: "guard-test" });
    const queueConn = createRedis({ url: stack.redisServer.url, logger, role: "guard-queue", bullmq: true });
    const queue = createDeliveryQueue(queueConn);
    const app = await buildApp({
      redis,
      deliveryQueue: queue,
      logger,
      internalToken: TOKEN,
      allowPrivateNetworks: false,
    });
    const bot = await stack.platform.createBot();
    const call = async (url: string) =>
      (
        await app.inject({
          method: "POST",
          url: "/internal/call/setWebhook",
          headers: { [INTERNAL_TOKEN_HEADER]: TOKEN },
          payload: { bot: { id: String(bot.id), username: bot.username, first_name: bot.first_name }, params: { url } },
        })
      ).json();
    try {
      for (const [url, ip] of [
        ["http://127.0.0.1:8080/x", "127.0.0.1"],
        ["https://10.1.2.3/x", "10.1.2.3"],
        ["https://169.254.169.254/latest", "169.254.169.254"],
        ["https://192.168.1.1/", "192.168.1.1"],
        ["https://[::1]/x", "::1"],
        ["https://[::ffff:127.0.0.1]/x", "::ffff:7f00:1"],
        ["https://[fd00::1]/x", "fd00::1"],
        ["http://[::127.0.0.1]:8443/x", "::7f00:1"],
        ["http://[::ffff:0:7f00:1]/x", "::ffff:0:7f00:1"],
        ["https://[64:ff9b::10.0.0.1]/x", "64:ff9b::a00:1"],
        ["https://[2002:c0a8:101::1]/x", "2002:c0a8:101::1"],
        ["http://localhost:3000/x", "127.0.0.1"],
      ]) {
        expect({ url, body: await call(url!) }).toEqual({
          url,
          body: bad(`Bad Request: bad webhook: IP address ${ip} is reserved`),
        });
        await liftSetLimit(bot.id);
      }
      expect(await call("https://no-such-host.invalid/x")).toEqual(
        bad("Bad Request: bad webhook: Failed to resolve host: Name or service not known"),
      );
    } finally {
      await app.close();
      await queue.close();
      for (const c of [redis, queueConn]) await c.quit();
    }
  }, 30_000);
});
