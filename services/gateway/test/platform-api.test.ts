import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ok, PLATFORM_ROUTES } from "@starpost/shared";
import { createLogger } from "@starpost/runtime";
import { createHttpServer, registerPlatformRows } from "@starpost/http";
import { botClient, http, startStack, TEST_PLATFORM_TOKEN, userMessage, type TestStack } from "@starpost/testkit";

describe("the platform API's description and the console's read routes", () => {
  let stack: TestStack;
  beforeAll(async () => {
    stack = await startStack();
  });
  afterAll(async () => {
    await stack?.close();
  });

  it("serves an OpenAPI 3.1 description with every route of the table, bodies and queries from their zod schemas", async () => {
    const res = await http(stack.gatewayUrl, "GET", "/platform/v1/openapi.json");
    expect(res.status).toBe(200);
    const doc = res.body;
    expect(doc.openapi).toBe("3.1.0");
    const described = Object.entries(doc.paths as Record<string, Record<string, any>>).flatMap(([path, ops]) =>
      Object.keys(ops).map((m) => `${m.toUpperCase()} ${path}`),
    );
    expect(described.sort()).toEqual(
      PLATFORM_ROUTES.map((r) => `${r.method} /platform/v1${r.url.replace(/:(\w+)/g, "{$1}")}`).sort(),
    );
    const createBot = doc.paths["/platform/v1/bots"].post;
    expect(createBot.requestBody.content["application/json"].schema).toMatchObject({
      type: "object",
      required: ["username"],
      properties: { username: { pattern: "^[A-Za-z0-9_]{5,32}$" } },
    });
    const history = doc.paths["/platform/v1/bots/{botId}/chats/{chatId}/messages"].get;
    expect(history.parameters.find((p: any) => p.name === "wait_ms")).toMatchObject({
      in: "query",
      schema: { type: "integer", minimum: 0, maximum: 30000 },
    });
  });

  it("every route of the table is served by the service that owns it", () => {
    const [, updates, invoices] = stack.apps;
    for (const r of PLATFORM_ROUTES) {
      const app = r.service === "updates" ? updates! : invoices!;
      expect(app.hasRoute({ method: r.method, url: `/internal/platform${r.url}` }), `${r.method} ${r.url}`).toBe(true);
    }
  });

  it("a service cannot register a platform route the table does not have (its schema and description)", () => {
    const app = createHttpServer(createLogger("test", "silent"));
    const row = { bot: "edge" as const, handler: async () => ok(true) };
    const opts = { redis: stack.redis, deps: {}, answer: () => ok(true) };
    expect(() => registerPlatformRows(app, { "POST /bots/:botId/unlisted": row }, opts)).toThrow(
      /not in PLATFORM_ROUTES/,
    );
  });

  it("names what is wrong with a new bot, a chat, an update or a fault, in the registry's words", async () => {
    const bot = await stack.platform.createBot();
    const answer = async (method: string, path: string, body: unknown) =>
      (await stack.platform.call(method, `/bots${path}`, body)).body;
    const bad = (description: string) => ({ ok: false, error_code: 400, description: `Bad Request: ${description}` });

    expect(await answer("POST", "", { username: "x" })).toEqual(
      bad('username must be 5-32 characters of A-Z, a-z, 0-9 and _ and end in "bot"'),
    );
    expect(await answer("POST", "", { username: "shaped_bot", token: "secret" })).toEqual(
      bad("token must look like <bot id>:<secret>"),
    );

    const chat = (id: string, body: unknown) => answer("PUT", `/${bot.id}/chats/${id}`, body);
    expect(await chat("x1", { type: "private" })).toEqual(bad("invalid chat: the chat id must be an integer"));
    expect(await chat("-7", { type: "private" })).toEqual(
      bad("invalid chat: private chats have positive ids, other chats negative ones"),
    );
    expect(await chat("-7", { type: "forum" })).toEqual(
      bad('invalid chat: type must be "private", "group", "supergroup" or "channel"'),
    );
    expect(await chat("-7", { type: "channel", username: "a b" })).toEqual(bad("invalid chat: bad username"));
    expect(await chat("-7", { type: "channel", username: 5 })).toEqual(bad('parameter "username" is invalid'));

    const update = (body: unknown) => answer("POST", `/${bot.id}/updates`, body);
    expect(await update([7])).toEqual(bad("invalid update: an Update object is expected"));
    expect(await update({ update_id: 1, ...userMessage(1, "x") })).toEqual(
      bad("invalid update: update_id is assigned by starpost"),
    );
    expect(await update({ ...userMessage(1, "x"), edited_message: {} })).toEqual(
      bad("invalid update: exactly one update kind is expected"),
    );
    expect(await update({ message: 5 })).toEqual(bad('invalid update: "message" must be an object'));
    expect(await update({ gossip: {} })).toEqual(bad('unknown update kind "gossip"'));
    expect(await update({ shipping_query: {} })).toEqual(bad('update kind "shipping_query" is never produced'));
    expect(await update(Array.from({ length: 1001 }, () => userMessage(1, "x")))).toEqual(
      bad("at most 1000 updates per call"),
    );

    const fault = (body: unknown) => answer("POST", `/${bot.id}/faults`, body);
    expect(await fault({ method: "", error_code: 400 })).toEqual(bad('method must be a method name or "*"'));
    expect(await fault({ method: "getMe", error_code: 400, description: "" })).toEqual(
      bad("description must be a string of 1-1024 characters"),
    );
    expect((await stack.platform.call("GET", `/bots/${bot.id}/chats`)).body.result.chats).toEqual([]);
  });

  it("lists bots without tokens, a bot's chats, its webhook, its Stars; 401 without the token", async () => {
    const bot = await stack.platform.createBot({ first_name: "Viewer" });
    const listed = await stack.platform.call("GET", "/bots");
    expect(listed.body.result.bots).toContainEqual({
      id: bot.id,
      username: bot.username,
      first_name: "Viewer",
    });
    expect(JSON.stringify(listed.body)).not.toContain(bot.token.split(":")[1]);

    await stack.platform.pushUpdate(bot.id, userMessage(42, "hi"));
    expect((await stack.platform.call("GET", `/bots/${bot.id}/chats`)).body.result.chats).toEqual([
      { id: 42, first_name: "Ann", type: "private" },
    ]);

    const call = botClient(stack.gatewayUrl, bot.token);
    expect((await call("setWebhook", { url: "http://127.0.0.1:9/hook" })).status).toBe(200);
    const webhook = await stack.platform.call("GET", `/bots/${bot.id}/webhook`);
    expect(webhook.body.result).toMatchObject({ url: "http://127.0.0.1:9/hook", pending_update_count: 1 });

    const stars = await stack.platform.call("GET", `/bots/${bot.id}/stars?limit=5`);
    expect(stars.body).toEqual({ ok: true, result: { balance: { amount: 0 }, transactions: [] } });
    expect((await stack.platform.call("GET", `/bots/${bot.id}/stars?limit=500`)).status).toBe(400);

    for (const path of ["/bots", `/bots/${bot.id}/chats`, `/bots/${bot.id}/webhook`, `/bots/${bot.id}/stars`]) {
      const res = await http(stack.gatewayUrl, "GET", `/platform/v1${path}`, {
        headers: { authorization: "Bearer expired-token" },
      });
      expect(res.status, path).toBe(401);
      expect(res.body).toEqual({ ok: false, error_code: 401, description: "Unauthorized" });
    }
    expect((await stack.platform.call("GET", "/bots/999999/webhook")).status).toBe(404);
  });

  it("takes the bearer scheme in any case, with any number of spaces before the token", async () => {
    const list = (authorization: string) =>
      http(stack.gatewayUrl, "GET", "/platform/v1/bots", { headers: { authorization } });
    for (const scheme of ["Bearer", "bearer", "BEARER", "bEaReR"]) {
      for (const gap of [" ", "   "]) {
        expect((await list(`${scheme}${gap}${TEST_PLATFORM_TOKEN}`)).status, `${scheme}${gap}`).toBe(200);
      }
    }
    for (const refused of [
      `Basic ${TEST_PLATFORM_TOKEN}`,
      `Bearer${TEST_PLATFORM_TOKEN}`,
      `Bearer ${TEST_PLATFORM_TOKEN}x`,
      `Bearer ${TEST_PLATFORM_TOKEN.slice(1)}`,
      "Bearer ",
      TEST_PLATFORM_TOKEN,
    ]) {
      expect((await list(refused)).body, refused).toEqual({ ok: false, error_code: 401, description: "Unauthorized" });
    }
  });
});
