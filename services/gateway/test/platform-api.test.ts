import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createHttpServer, createLogger, PLATFORM_ROUTES } from "@starpost/shared";
import { botClient, http, startStack, userMessage, type TestStack } from "@starpost/testkit";

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
    expect(() => app.post("/internal/platform/bots/:botId/unlisted", async () => "x")).toThrow(
      /not in PLATFORM_ROUTES/,
    );
  });

  it("lists bots without tokens, a bot's chats, its webhook, its Stars; 401 without the token", async () => {
    const bot = await stack.platform.createBot({ first_name: "Viewer" });
    const listed = await stack.platform.call("GET", "/bots");
    expect(listed.body.result.bots).toContainEqual({
      id: String(bot.id),
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
});
