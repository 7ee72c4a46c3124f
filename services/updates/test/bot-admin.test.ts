import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { botClient, http, push, startStack, userMessage, waitingPoll, type TestStack } from "@starpost/testkit";

let stack: TestStack;
beforeAll(async () => {
  stack = await startStack();
});
afterAll(() => stack.close());

const fault = (botId: number, body: unknown) => stack.platform.call("POST", `/bots/${botId}/faults`, body);

describe("scripted faults", () => {
  it("the next call of the method answers the error in the exact envelope, then calls go through again", async () => {
    const bot = await stack.platform.createBot();
    const call = botClient(stack.gatewayUrl, bot.token);
    const added = await fault(bot.id, { method: "getme", error_code: 429, retry_after: 3 });
    expect(added).toMatchObject({ status: 200, body: { ok: true, result: { id: 1 } } });
    const failed = await call("getMe");
    expect(failed.status).toBe(429);
    expect(failed.headers["retry-after"]).toBe("3");
    expect(failed.body).toEqual({
      ok: false,
      error_code: 429,
      description: "Too Many Requests: retry after 3",
      parameters: { retry_after: 3 },
    });
    expect((await call("getMe")).status).toBe(200);
    expect((await stack.platform.call("GET", `/bots/${bot.id}/faults`)).body.result).toEqual({ faults: [] });
  });

  it("times, the reference's default texts, '*' for any method, list and clear", async () => {
    const bot = await stack.platform.createBot();
    const call = botClient(stack.gatewayUrl, bot.token);
    await fault(bot.id, { method: "getWebhookInfo", error_code: 403, times: 2 });
    await fault(bot.id, { method: "*", error_code: 500, description: "Internal Server Error: try later" });
    const listed = (await stack.platform.call("GET", `/bots/${bot.id}/faults`)).body.result.faults;
    expect(listed).toEqual([
      { id: 1, method: "getWebhookInfo", error_code: 403, times: 2 },
      { id: 2, method: "*", error_code: 500, description: "Internal Server Error: try later", times: 1 },
    ]);
    const blocked = {
      status: 403,
      body: { ok: false, error_code: 403, description: "Forbidden: bot was blocked by the user" },
    };
    expect(await call("getWebhookInfo")).toMatchObject(blocked);
    expect(await call("getMe")).toMatchObject({
      status: 500,
      body: { description: "Internal Server Error: try later" },
    });
    expect(await call("getWebhookInfo")).toMatchObject(blocked);
    expect((await call("getWebhookInfo")).status).toBe(200);

    await fault(bot.id, { method: "getMe", error_code: 502, times: 5 });
    expect(await stack.platform.call("DELETE", `/bots/${bot.id}/faults`)).toMatchObject({
      status: 200,
      body: { result: true },
    });
    expect((await call("getMe")).status).toBe(200);
  });

  it("a bot holds at most 100 faults: the next is refused and adds nothing, until they are cleared", async () => {
    const bot = await stack.platform.createBot();
    for (let i = 0; i < 100; i++)
      expect((await fault(bot.id, { method: "getMe", delay_ms: 1 })).body.result).toEqual({ id: i + 1 });
    expect(await fault(bot.id, { method: "getMe", error_code: 500 })).toMatchObject({
      status: 400,
      body: {
        ok: false,
        error_code: 400,
        description: "Bad Request: a bot holds at most 100 faults; clear them first",
      },
    });
    expect((await stack.platform.call("GET", `/bots/${bot.id}/faults`)).body.result.faults).toHaveLength(100);
    await stack.platform.call("DELETE", `/bots/${bot.id}/faults`);
    expect((await fault(bot.id, { method: "getMe", error_code: 500 })).status).toBe(200);
  });

  it("a delay holds the call first; a bot's faults never touch another bot", async () => {
    const [a, b] = [await stack.platform.createBot(), await stack.platform.createBot()];
    await fault(a.id, { method: "getMe", delay_ms: 300 });
    await fault(a.id, { method: "*", error_code: 409 });
    const started = Date.now();
    expect((await botClient(stack.gatewayUrl, b.token)("getMe")).status).toBe(200);
    const delayed = await botClient(stack.gatewayUrl, a.token)("getMe");
    expect(delayed.status).toBe(200);
    expect(Date.now() - started).toBeGreaterThanOrEqual(300);
    expect((await botClient(stack.gatewayUrl, a.token)("getMe")).status).toBe(409);
  });

  it("refuses a fault that cannot apply, naming what is wrong", async () => {
    const bot = await stack.platform.createBot();
    const bad = (description: string) => ({
      status: 400,
      body: { ok: false, error_code: 400, description: `Bad Request: ${description}` },
    });
    expect(await fault(bot.id, { method: "sendPigeon", error_code: 400 })).toMatchObject(
      bad('unknown method "sendPigeon"'),
    );
    expect(await fault(bot.id, { method: "getMe" })).toMatchObject(bad("a fault needs error_code, delay_ms or both"));
    expect(await fault(bot.id, { method: "getMe", error_code: 503 })).toMatchObject(
      bad("description is required for error_code 503"),
    );
    expect(await fault(bot.id, { method: "getMe", error_code: 400, retry_after: 2 })).toMatchObject(
      bad("retry_after goes with error_code 429"),
    );
    expect(await fault(bot.id, { method: "getMe", error_code: 200 })).toMatchObject(
      bad("error_code must be an integer 400-599"),
    );
    expect(await fault(999_999, { method: "getMe", error_code: 400 })).toMatchObject({ status: 404 });
    expect((await stack.platform.call("GET", `/bots/${bot.id}/faults`)).body.result.faults).toEqual([]);
  });
});

describe("the request log", () => {
  it("lists the bot's calls newest last, with outcome and without secrets, and only its own", async () => {
    const [bot, other] = [await stack.platform.createBot(), await stack.platform.createBot()];
    const call = botClient(stack.gatewayUrl, bot.token);
    await call("getMe");
    await call("setWebhook", { url: "http://127.0.0.1:9/hook", secret_token: "s3cret-value" });
    await call("sendInvoice", { chat_id: 1, title: "T" });
    await call("sendPhoto", { chat_id: 1 });
    await botClient(stack.gatewayUrl, other.token)("getMe");
    const read = async (id: number, q = "") =>
      (await stack.platform.call("GET", `/bots/${id}/requests${q}`)).body.result.requests;
    let log: any[] = [];
    // The entry is written after the answer went out.
    for (const until = Date.now() + 5000; log.length < 4 && Date.now() < until;) log = await read(bot.id);
    expect(log.map((r) => [r.method, r.status, r.ok])).toEqual([
      ["getMe", 200, true],
      ["setWebhook", 200, true],
      ["sendInvoice", 400, false],
      ["sendPhoto", 404, false],
    ]);
    expect(log[1].params).toEqual({ url: "http://127.0.0.1:9/hook", secret_token: "***" });
    expect(log[2]).toMatchObject({ error_code: 400, description: 'Bad Request: parameter "description" is required' });
    expect(typeof log[0].duration_ms).toBe("number");
    expect(JSON.stringify(log)).not.toContain("s3cret-value");
    expect(JSON.stringify(log)).not.toContain(bot.token);
    expect((await read(bot.id, "?limit=1")).map((r: any) => r.method)).toEqual(["sendPhoto"]);
    expect((await read(other.id)).map((r: any) => r.method)).toEqual(["getMe"]);
  });

  it("logs getUpdates in call order however it was answered: at once (by its read's step), woken, refused for a webhook", async () => {
    const bot = await stack.platform.createBot();
    const call = botClient(stack.gatewayUrl, bot.token);
    await call("getMe");
    expect((await call("getUpdates", { timeout: 0, limit: 5 })).body).toEqual({ ok: true, result: [] });
    const poll = call("getUpdates", { timeout: 20 });
    await waitingPoll(stack.redis, bot.id);
    await push(stack.platform, bot.id, userMessage(5, "hi"));
    expect((await poll).body.result).toHaveLength(1);
    await call("setWebhook", { url: "http://127.0.0.1:9/hook" });
    expect((await call("getUpdates", { offset: 2 })).status).toBe(409);
    let log: any[] = [];
    const read = async () => (await stack.platform.call("GET", `/bots/${bot.id}/requests`)).body.result.requests;
    for (const until = Date.now() + 5000; log.length < 5 && Date.now() < until;) log = await read();
    expect(log.map((r) => [r.method, r.status, r.ok])).toEqual([
      ["getMe", 200, true],
      ["getUpdates", 200, true],
      ["getUpdates", 200, true],
      ["setWebhook", 200, true],
      ["getUpdates", 409, false],
    ]);
    // The parameters as the call sent them (this client's form values are text).
    expect([log[1].params.timeout, log[1].params.limit].map(String)).toEqual(["0", "5"]);
    expect(typeof log[1].date).toBe("number");
    expect(typeof log[1].duration_ms).toBe("number");
    expect(String(log[4].params.offset)).toBe("2");
    expect(log[4].error_code).toBe(409);
  });

  it("masks token, secret_token, provider_token and URL passwords, at any depth; getWebhookInfo keeps the URL as set", async () => {
    const bot = await stack.platform.createBot();
    const call = botClient(stack.gatewayUrl, bot.token);
    expect((await stack.platform.putChat(bot.id, { id: 5, type: "private", first_name: "Ann" })).status).toBe(200);
    const url = "https://hook-user:hunter2pw@127.0.0.1:9/hook";
    const secrets = ["hunter2pw", "s3cretTok", "leaktoken1", "prov-secret", "btnpass", "deeptoken"];
    await call("setWebhook", { url, secret_token: "s3cretTok" });
    await call("getMe", { token: "leaktoken1" });
    await call("sendInvoice", {
      chat_id: 5,
      title: "T",
      description: "D",
      payload: "p",
      currency: "XTR",
      prices: [{ label: "x", amount: 1 }],
      provider_token: "prov-secret",
    });
    await call("sendMessage", {
      chat_id: 5,
      text: "see",
      reply_markup: { inline_keyboard: [[{ text: "open", url: "https://btn:btnpass@example.com/x" }]] },
      extra: { nested: [{ token: "deeptoken" }] },
    });
    let log: any[] = [];
    const read = async () => (await stack.platform.call("GET", `/bots/${bot.id}/requests`)).body.result.requests;
    for (const until = Date.now() + 5000; log.length < 4 && Date.now() < until;) log = await read();
    expect(log.map((r) => r.method)).toEqual(["setWebhook", "getMe", "sendInvoice", "sendMessage"]);
    const text = JSON.stringify(log);
    expect(secrets.filter((s) => text.includes(s))).toEqual([]);
    expect(log[0].params).toEqual({ url: "https://***@127.0.0.1:9/hook", secret_token: "***" });
    expect(log[1].params).toEqual({ token: "***" });
    expect(log[2].params).toMatchObject({ provider_token: "***", title: "T", currency: "XTR" });
    // Logged as the text the call sent (a JSON body's objects keep their JSON text).
    const markup = log[3].params.reply_markup;
    expect(typeof markup === "string" ? JSON.parse(markup) : markup).toEqual({
      inline_keyboard: [[{ text: "open", url: "https://***@example.com/x" }]],
    });
    // The bot's own getWebhookInfo: the URL as set, as the official server answers it; the
    // platform's view of the webhook: without the password.
    expect((await call("getWebhookInfo")).body.result.url).toBe(url);
    const view = await stack.platform.call("GET", `/bots/${bot.id}/webhook`);
    expect(view.body.result.url).toBe("https://***@127.0.0.1:9/hook");
  });
});

describe("DELETE /bots/:botId", () => {
  it("removes the bot and every key of it; its token fails at once; the username is free again", async () => {
    const bot = await stack.platform.createBot();
    const call = botClient(stack.gatewayUrl, bot.token);
    await stack.platform.call("POST", `/bots/${bot.id}/chats/77/messages`, { text: "hi" });
    await call("sendMessage", { chat_id: 77, text: "hello" });
    await fault(bot.id, { method: "getUpdates", error_code: 500 });
    expect(await stack.platform.call("DELETE", `/bots/${bot.id}`)).toMatchObject({
      status: 200,
      body: { ok: true, result: true },
    });
    expect(await call("getMe")).toMatchObject({ status: 401, body: { description: "Unauthorized" } });
    const left = await stack.redis.keys(`*{b:${bot.id}}*`);
    expect(left).toEqual([]);
    expect(await stack.platform.call("DELETE", `/bots/${bot.id}`)).toMatchObject({ status: 404 });
    expect((await stack.platform.call("POST", "/bots", { username: bot.username })).status).toBe(200);
    expect(
      await http(stack.gatewayUrl, "GET", `/platform/v1/bots/${bot.id}/requests`, {
        headers: { authorization: "Bearer wrong" },
      }),
    ).toMatchObject({ status: 401 });
  });
});

describe("DELETE /bots?tag=", () => {
  const create = async (username: string, tag?: string) =>
    (await stack.platform.call("POST", "/bots", { username, ...(tag ? { tag } : {}) })).body.result as {
      id: number;
      token: string;
      tag?: string;
    };
  const listed = async (query: string) =>
    ((await stack.platform.call("GET", `/bots${query}`)).body.result.bots as { id: number }[]).map((b) => b.id);

  it("deletes every bot created with the tag, and only those; lists by tag", async () => {
    const a1 = await create("tag_a1_bot", "run-1");
    const a2 = await create("tag_a2_bot", "run-1");
    const b = await create("tag_b_bot", "run-2");
    const plain = await create("tag_none_bot");
    expect(a1.tag).toBe("run-1");
    expect(await listed("?tag=run-1")).toEqual([a1.id, a2.id]);
    expect((await stack.platform.call("GET", "/bots")).body.result.bots).toContainEqual({
      id: b.id,
      username: "tag_b_bot",
      first_name: "tag_b_bot",
      tag: "run-2",
    });

    // A creation that died after the tag's entry, before its bot (long ago): an entry the deletion
    // drops; an entry naming a bot of another tag: that bot is kept, the entry dropped.
    await stack.redis.hset("sp:bot-tag:run-1", "123456", 0, String(plain.id), 0);
    expect(await stack.platform.call("DELETE", "/bots?tag=run-1")).toMatchObject({
      status: 200,
      body: { ok: true, result: { deleted: 2 } },
    });
    for (const gone of [a1, a2])
      expect(await botClient(stack.gatewayUrl, gone.token)("getMe")).toMatchObject({ status: 401 });
    for (const kept of [b, plain])
      expect(await botClient(stack.gatewayUrl, kept.token)("getMe")).toMatchObject({ status: 200 });
    expect(await stack.redis.exists("sp:bot-tag:run-1")).toBe(0);
    expect(await listed("?tag=run-1")).toEqual([]);
    expect(await stack.platform.call("DELETE", "/bots?tag=run-1")).toMatchObject({ body: { result: { deleted: 0 } } });

    // A bot deleted on its own leaves its tag's set too.
    await stack.platform.call("DELETE", `/bots/${b.id}`);
    expect(await stack.redis.exists("sp:bot-tag:run-2")).toBe(0);
  });

  it("refuses a missing or malformed tag and deletes nothing", async () => {
    const kept = await create("tag_kept_bot", "keep");
    const refusal = {
      status: 400,
      body: {
        ok: false,
        error_code: 400,
        description: "Bad Request: tag must be 1-64 characters of A-Z, a-z, 0-9 and _ . : -",
      },
    };
    expect(await stack.platform.call("DELETE", "/bots")).toMatchObject(refusal);
    expect(await stack.platform.call("DELETE", "/bots?tag=")).toMatchObject(refusal);
    expect(await stack.platform.call("DELETE", "/bots?tag=a%20b")).toMatchObject(refusal);
    expect(await stack.platform.call("POST", "/bots", { username: "tag_bad_bot", tag: "x".repeat(65) })).toMatchObject(
      refusal,
    );
    expect(await listed("?tag=keep")).toEqual([kept.id]);
  });
});
