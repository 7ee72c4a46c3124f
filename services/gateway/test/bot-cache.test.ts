import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { botClient, commandCalls, eventually, startStack, type TestStack } from "@starpost/testkit";

// The gateway authenticates from its in-process cache of bot records, kept true by Redis's
// client-side caching invalidations (on one Redis; on a cluster it reads every call).
let stack: TestStack;
beforeAll(async () => {
  stack = await startStack();
});
afterAll(() => stack.close());

/** HMGET calls Redis has run so far (only the gateway's token check reads a bot with HMGET on getMe). */
const hmgets = () => commandCalls(stack, "hmget");

/** Waits until a bot's getMe is answered without reading Redis (the cache holds its record). */
async function cached(call: ReturnType<typeof botClient>) {
  await eventually(
    async () => {
      expect((await call("getMe")).status).toBe(200);
      const before = await hmgets();
      for (let i = 0; i < 3; i++) expect((await call("getMe")).status).toBe(200);
      return (await hmgets()) === before;
    },
    10_000,
    "getMe answered from the cache",
  );
}

describe("the bot cache", () => {
  it("answers a known bot's calls without reading Redis (on a cluster: reads every call)", async () => {
    const bot = await stack.platform.createBot();
    const call = botClient(stack.gatewayUrl, bot.token);
    if (!stack.cluster) return cached(call);
    const before = await hmgets();
    for (let i = 0; i < 3; i++) expect((await call("getMe")).status).toBe(200);
    expect((await hmgets()) - before).toBeGreaterThanOrEqual(3);
  });

  it("refuses a rotated token and a deleted bot at once, and sees a fault added meanwhile", async () => {
    const a = await stack.platform.createBot();
    const b = await stack.platform.createBot();
    const c = await stack.platform.createBot();
    const callA = botClient(stack.gatewayUrl, a.token);
    const callB = botClient(stack.gatewayUrl, b.token);
    const callC = botClient(stack.gatewayUrl, c.token);
    if (!stack.cluster) for (const call of [callA, callB, callC]) await cached(call);

    const rotated = await stack.platform.call("POST", `/bots/${a.id}/token`);
    expect(rotated.status).toBe(200);
    expect((await callA("getMe")).body).toEqual({ ok: false, error_code: 401, description: "Unauthorized" });
    expect((await botClient(stack.gatewayUrl, rotated.body.result.token)("getMe")).status).toBe(200);

    expect((await stack.platform.call("DELETE", `/bots/${b.id}`)).status).toBe(200);
    expect((await callB("getMe")).body).toEqual({ ok: false, error_code: 401, description: "Unauthorized" });

    expect(
      (await stack.platform.call("POST", `/bots/${c.id}/faults`, { method: "getMe", error_code: 429, retry_after: 3 }))
        .status,
    ).toBe(200);
    expect((await callC("getMe")).status).toBe(429);
    expect((await callC("getMe")).status).toBe(200);
  });

  it("refuses a wrong secret and an unknown id with one Redis read each, keeps the bot cached, and accepts a bot created with a refused id at once", async () => {
    const known = await stack.platform.createBot();
    const knownCall = botClient(stack.gatewayUrl, known.token);
    if (!stack.cluster) await cached(knownCall);
    const id = 900_000_000 + Math.floor(Math.random() * 1_000_000);
    const token = `${id}:AAF${"x".repeat(32)}`;
    const unauthorized = { ok: false, error_code: 401, description: "Unauthorized" };
    const wrongSecret = botClient(stack.gatewayUrl, `${known.id}:AAF${"y".repeat(32)}`);
    const unknownId = botClient(stack.gatewayUrl, token);
    // The same work whether the bot exists (and was active lately) or not: one read per refusal.
    for (const call of [wrongSecret, unknownId, wrongSecret, unknownId]) {
      const before = await hmgets();
      expect((await call("getMe")).body).toEqual(unauthorized);
      expect((await hmgets()) - before).toBe(1);
    }
    if (!stack.cluster) await cached(knownCall);
    const bot = await stack.platform.createBot({ token });
    expect(bot.id).toBe(id);
    expect((await unknownId("getMe")).body).toMatchObject({ ok: true, result: { id } });
  });
});
