import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { keys } from "@starpost/shared";
import { http, startStack, type TestStack } from "@starpost/testkit";

let stack: TestStack;
let bot: { id: number; token: string; username: string };

beforeAll(async () => {
  stack = await startStack();
  bot = await stack.platform.createBot({ first_name: "Front" });
});
afterAll(() => stack.close());

const boundary = "----starpostboundary";
const multipart = (fields: Record<string, string>) =>
  Object.entries(fields)
    .map(([k, v]) => `--${boundary}\r\nContent-Disposition: form-data; name="${k}"\r\n\r\n${v}\r\n`)
    .join("") + `--${boundary}--\r\n`;

describe("the request front", () => {
  it("answers getMe identically as GET query, JSON, urlencoded and multipart", async () => {
    const url = stack.gatewayUrl;
    const path = `/bot${bot.token}/getMe`;
    const answers = await Promise.all([
      http(url, "GET", `${path}?x=1`),
      http(url, "POST", path, { body: { x: 1 } }),
      http(url, "POST", path, { body: "x=1", contentType: "application/x-www-form-urlencoded" }),
      http(url, "POST", path, {
        body: multipart({ x: "1" }),
        contentType: `multipart/form-data; boundary=${boundary}`,
      }),
    ]);
    for (const a of answers) {
      expect(a.status).toBe(200);
      expect(a.body).toEqual(answers[0]!.body);
    }
    expect(answers[0]!.body.result).toMatchObject({
      id: bot.id,
      is_bot: true,
      username: bot.username,
      first_name: "Front",
    });
  });

  it("treats method names case-insensitively", async () => {
    for (const m of ["GETME", "getme", "GetMe"]) {
      const r = await http(stack.gatewayUrl, "GET", `/bot${bot.token}/${m}`);
      expect(r.body.result.id).toBe(bot.id);
    }
  });

  it("answers the reference texts for bad paths, tokens and methods", async () => {
    const cases: [string, number, string][] = [
      ["/nothing", 404, "Not Found"],
      [`/bot${bot.token}`, 404, "Not Found"],
      ["/botnotatoken/getMe", 401, "Unauthorized: invalid token specified"],
      ["/bot0:abc/getMe", 401, "Unauthorized: invalid token specified"],
      [`/bot${"1".repeat(10)}:${"a".repeat(80)}/getMe`, 401, "Unauthorized: invalid token specified"],
      [`/bot${bot.id}:wrongsecret/getMe`, 401, "Unauthorized"],
      [`/bot${bot.token}/noSuchMethod`, 404, "Not Found: method not found"],
    ];
    for (const [path, status, description] of cases) {
      const r = await http(stack.gatewayUrl, "GET", path);
      expect({ path, status: r.status, body: r.body }).toEqual({
        path,
        status,
        body: { ok: false, error_code: status, description },
      });
    }
  });

  it("runs the method without a broken JSON body, and refuses an oversized one with 413", async () => {
    const broken = await http(stack.gatewayUrl, "POST", `/bot${bot.token}/getMe`, { body: "{not json" });
    expect(broken.status).toBe(200);
    expect(broken.body.result.id).toBe(bot.id);
    const huge = await http(stack.gatewayUrl, "POST", `/bot${bot.token}/getMe`, {
      body: JSON.stringify({ a: "x".repeat(1024 * 1024 + 10) }),
    });
    expect(huge.status).toBe(413);
    expect(huge.body).toMatchObject({ ok: false, error_code: 413 });
  });

  it("refuses a rotated token at once", async () => {
    const b = await stack.platform.createBot();
    expect((await http(stack.gatewayUrl, "GET", `/bot${b.token}/getMe`)).status).toBe(200);
    const rotated = await stack.platform.call("POST", `/bots/${b.id}/token`);
    expect(rotated.status).toBe(200);
    expect((await http(stack.gatewayUrl, "GET", `/bot${b.token}/getMe`)).body).toEqual({
      ok: false,
      error_code: 401,
      description: "Unauthorized",
    });
    expect((await http(stack.gatewayUrl, "GET", `/bot${rotated.body.result.token}/getMe`)).status).toBe(200);
  });

  it("rotates no token of a deleted bot, and leaves no record behind", async () => {
    const b = await stack.platform.call("POST", "/bots", { username: "rotate_gone_bot" });
    const id = b.body.result.id as number;
    expect((await stack.platform.call("DELETE", `/bots/${id}`)).status).toBe(200);
    expect((await stack.platform.call("POST", `/bots/${id}/token`)).body).toEqual({
      ok: false,
      error_code: 404,
      description: "Not Found: bot not found",
    });
    expect(await stack.redis.exists(keys.bot(String(id)))).toBe(0);
  });

  it("guards the platform API with the bearer token", async () => {
    const r = await http(stack.gatewayUrl, "POST", "/platform/v1/bots", { body: { username: "someone_bot" } });
    expect(r.body).toEqual({ ok: false, error_code: 401, description: "Unauthorized" });
  });
});

describe("JSON bodies", () => {
  it("runs a Bot API call whose JSON body is not an object as if it had no body (the reference only logs it)", async () => {
    for (const body of ["[1,2]", "3", '"x"', "null"]) {
      const r = await http(stack.gatewayUrl, "POST", `/bot${bot.token}/getMe`, { body });
      expect(r.status).toBe(200);
      expect(r.body.result.id).toBe(bot.id);
    }
  });

  it("takes a platform batch as a JSON array", async () => {
    const r = await stack.platform.pushUpdate(bot.id, [
      { message: { message_id: 1, date: 1, chat: { id: 5, type: "private" }, text: "a" } },
      { message: { message_id: 2, date: 1, chat: { id: 5, type: "private" }, text: "b" } },
    ]);
    expect(r.status).toBe(200);
    expect(r.body.result).toHaveLength(2);
    expect(r.body.result[1].update_id).toBe(r.body.result[0].update_id + 1);
  });
});

describe("token rotation across gateway replicas", () => {
  it("refuses the old token on every replica at once", async () => {
    const second = await startStack({ redisServer: stack.redisServer });
    try {
      const b = await stack.platform.createBot();
      for (const url of [stack.gatewayUrl, second.gatewayUrl])
        expect((await http(url, "GET", `/bot${b.token}/getMe`)).status).toBe(200);
      const rotated = await second.platform.call("POST", `/bots/${b.id}/token`);
      for (const url of [stack.gatewayUrl, second.gatewayUrl]) {
        expect((await http(url, "GET", `/bot${b.token}/getMe`)).body).toEqual({
          ok: false,
          error_code: 401,
          description: "Unauthorized",
        });
        expect((await http(url, "GET", `/bot${rotated.body.result.token}/getMe`)).status).toBe(200);
      }
    } finally {
      await second.close();
    }
  });
});

describe("an empty Content-Type header", () => {
  it("is treated like no header, with or without a body", async () => {
    const { connect } = await import("node:net");
    const port = Number(new URL(stack.gatewayUrl).port);
    const raw = (body: string) =>
      new Promise<string>((resolve) => {
        const c = connect(port, "127.0.0.1");
        let data = "";
        c.on("data", (d) => (data += d));
        c.on("end", () => resolve(data.split("\r\n\r\n")[1] ?? ""));
        c.write(
          `POST /bot${bot.token}/getMe HTTP/1.1\r\nHost: x\r\nContent-Type:\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n${body}`,
        );
      });
    for (const body of ["", "x=1"])
      expect(JSON.parse(await raw(body))).toMatchObject({ ok: true, result: { id: bot.id } });
  });
});

describe("parameters named like prototype properties", () => {
  it("are ignored like any unknown parameter, in the query string and in a JSON body", async () => {
    const path = `/bot${bot.token}/getUpdates`;
    for (const r of [
      await http(stack.gatewayUrl, "GET", `${path}?__proto__=x&constructor=y&timeout=0`),
      await http(stack.gatewayUrl, "POST", path, { body: '{"__proto__":{"timeout":5},"prototype":1,"timeout":0}' }),
    ]) {
      expect(r.status).toBe(200);
      expect(r.body).toMatchObject({ ok: true });
    }
  });

  it("an internal service answers a body its parser refuses in the envelope too", async () => {
    const r = await http(stack.updatesUrl, "POST", "/internal/call/getWebhookInfo", {
      body: '{"bot":{"id":"1","username":"a_bot","first_name":"A"},"params":{"__proto__":{}}}',
      headers: { "x-internal-token": "test-internal-token" },
    });
    expect(r.body).toEqual({ ok: false, error_code: 400, description: "Bad Request: can't parse request body" });
  });

  it("an internal call without the authenticated bot's record is refused as a bad body", async () => {
    const good = { id: "1", username: "a_bot", first_name: "A" };
    for (const bot of [
      undefined,
      "1",
      { ...good, id: 1 },
      { ...good, id: "x1" },
      { ...good, username: "" },
      { id: "1", username: "a_bot" },
    ]) {
      const r = await http(stack.invoicesUrl, "POST", "/internal/call/getMyStarBalance", {
        body: { botId: "1", bot, params: {} },
        headers: { "x-internal-token": "test-internal-token" },
      });
      expect({ bot, body: r.body }).toEqual({
        bot,
        body: { ok: false, error_code: 400, description: "Bad Request: can't parse request body" },
      });
    }
    const r = await http(stack.invoicesUrl, "POST", "/internal/call/getMyStarBalance", {
      body: { bot: good, params: {} },
      headers: { "x-internal-token": "test-internal-token" },
    });
    expect(r.body).toEqual({ ok: true, result: { amount: 0 } });
  });
});
