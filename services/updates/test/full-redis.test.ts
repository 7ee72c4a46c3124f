import { afterAll, beforeAll, expect, it } from "vitest";
import { botClient, metric, startRedis, startStack, type RedisServer, type TestStack } from "@starpost/testkit";
import { CHAT_HISTORY_SIZE, keys } from "@starpost/shared";
import { MAX_LOGGED_PARAMS_CHARS, TRUNCATED_PARAMS } from "@starpost/runtime";

// Redis with maxmemory and noeviction, as `npm start` and compose run it: past the limit a call
// is answered a distinct, retryable 503 and nothing of it is applied; per-bot collections stay
// bounded; a push with an idempotency_key is applied once. One private Redis (never a cluster:
// the test sets its maxmemory).
let redisServer: RedisServer;
let stack: TestStack;
beforeAll(async () => {
  redisServer = await startRedis({ maxmemory: "1gb" });
  stack = await startStack({ redisServer });
});
afterAll(async () => {
  await stack.close();
  await redisServer.stop();
});

const chat = { id: 5, type: "private", first_name: "Ann" };
const message = (text: string) => ({ message: { message_id: 1, date: 1, chat, text } });
const usedMemory = async () => Number(/used_memory:(\d+)/.exec(await stack.redis.info("memory"))![1]);

it("at maxmemory a push or a bot call answers 503 storage full with retry_after, and only the pushes answered ok are in the log", async () => {
  const bot = await stack.platform.createBot();
  await stack.platform.putChat(bot.id, chat);
  const call = botClient(stack.gatewayUrl, bot.token);
  const refusedBefore = await metric(stack.updatesUrl, "starpost_redis_writes_refused_total", 'write="step"');
  await stack.redis.config("SET", "maxmemory", String((await usedMemory()) + 2_000_000));
  try {
    const answered = new Map<string, number>();
    const filler = "x".repeat(20_000);
    let refused = 0;
    for (let round = 0; refused < 20; round++) {
      expect(round).toBeLessThan(200);
      // Eight at once, so refusals also meet steps in flight.
      const texts = Array.from({ length: 8 }, (_, i) => `push-${round}-${i} `);
      const replies = await Promise.all(texts.map((t) => stack.platform.pushUpdate(bot.id, message(t + filler))));
      replies.forEach((r, i) => {
        answered.set(texts[i]!, r.status);
        if (r.status === 200) return;
        refused++;
        expect(r.status).toBe(503);
        expect(r.headers["retry-after"]).toBe("5");
        expect(r.body).toEqual({
          ok: false,
          error_code: 503,
          description: "Service Unavailable: storage is full, retry later",
          parameters: { retry_after: 5 },
        });
      });
    }
    // Memory moves (buffers are freed), so the bot call gets a limit surely below what is used.
    await stack.redis.config("SET", "maxmemory", String((await usedMemory()) - 1_000_000));
    const sent = await call("sendMessage", { chat_id: chat.id, text: filler.slice(0, 4096) });
    expect(sent.status).toBe(503);
    expect(sent.body.description).toBe("Service Unavailable: storage is full, retry later");

    const logged = new Set<string>();
    for (const [, fields] of await stack.redis.xrange(keys.updateLog(String(bot.id)), "-", "+")) {
      for (const f of fields) for (const m of f.matchAll(/push-\d+-\d+ /g)) logged.add(m[0]);
    }
    const ok = [...answered].filter(([, status]) => status === 200).map(([t]) => t);
    expect(ok.length).toBeGreaterThan(0);
    // Nothing both refused and applied, nothing acknowledged and missing.
    expect([...logged].sort()).toEqual(ok.sort());
    expect(
      await metric(stack.updatesUrl, "starpost_redis_writes_refused_total", 'write="step"'),
    ).toBeGreaterThanOrEqual(refusedBefore + refused);
  } finally {
    await stack.redis.config("SET", "maxmemory", "1gb");
  }
  // Memory again: the same call goes through.
  expect((await stack.platform.pushUpdate(bot.id, message("after"))).status).toBe(200);
});

it("a push with an idempotency_key is applied once: a repeat answers the first result, other updates are refused", async () => {
  const bot = await stack.platform.createBot();
  const path = `/bots/${bot.id}/updates?idempotency_key=order-7`;
  const batch = [message("one"), message("two")];
  const first = await stack.platform.call("POST", path, batch);
  expect(first.status).toBe(200);
  expect(first.body.result).toHaveLength(2);
  const again = await stack.platform.call("POST", path, batch);
  expect(again.body).toEqual(first.body);
  expect(await stack.redis.xlen(keys.updateLog(String(bot.id)))).toBe(2);
  const other = await stack.platform.call("POST", path, [message("three")]);
  expect(other.status).toBe(400);
  expect(other.body.description).toBe("Bad Request: idempotency_key was already used for other updates");
  // Without a key, or with another one, every push appends.
  await stack.platform.call("POST", `/bots/${bot.id}/updates`, batch);
  await stack.platform.call("POST", `/bots/${bot.id}/updates?idempotency_key=order-8`, batch);
  expect(await stack.redis.xlen(keys.updateLog(String(bot.id)))).toBe(6);
  const bad = await stack.platform.call("POST", `/bots/${bot.id}/updates?idempotency_key=${"k".repeat(65)}`, batch);
  expect(bad.status).toBe(400);
});

it("a chat keeps its newest CHAT_HISTORY_SIZE messages; an invoice it drops takes its record along", async () => {
  const bot = await stack.platform.createBot();
  await stack.platform.putChat(bot.id, chat);
  const call = botClient(stack.gatewayUrl, bot.token);
  const invoice = { title: "T", description: "D", payload: "p", currency: "XTR", prices: [{ label: "x", amount: 1 }] };
  expect(await call("sendInvoice", { chat_id: chat.id, ...invoice })).toMatchObject({ status: 200 });
  expect(await stack.redis.hexists(keys.invoices(String(bot.id)), `${chat.id}:1`)).toBe(1);
  const total = CHAT_HISTORY_SIZE + 5;
  // In each group of 20 ids, 10 the bot sends, then 10 the user sends: message 1001, which drops
  // message 1 (the invoice), is a user's.
  for (let sent = 1; sent < total; sent += 20) {
    const n = Math.min(20, total - sent);
    const half = Math.floor(n / 2);
    await Promise.all(
      Array.from({ length: n - half }, (_, i) =>
        call("sendMessage", { chat_id: chat.id, text: `m${sent + i}` }).then((r) => expect(r.status).toBe(200)),
      ),
    );
    await Promise.all(
      Array.from({ length: half }, (_, i) =>
        stack.platform
          .call("POST", `/bots/${bot.id}/chats/${chat.id}/messages`, { text: `u${sent + i}` })
          .then((r) => expect(r.status).toBe(200)),
      ),
    );
  }
  const fields = await stack.redis.hkeys(keys.messages(String(bot.id)));
  const ids = fields.map((f) => Number(f.split(":")[1])).sort((a, b) => a - b);
  expect(ids).toHaveLength(CHAT_HISTORY_SIZE);
  expect(ids[0]).toBe(6);
  expect(ids.at(-1)).toBe(total);
  const history = await stack.platform.call("GET", `/bots/${bot.id}/chats/${chat.id}/messages?limit=10`);
  expect(history.body.result.messages.map((m: { message_id: number }) => m.message_id)).toEqual([
    6, 7, 8, 9, 10, 11, 12, 13, 14, 15,
  ]);
  // The invoice (message 1) was dropped by a user's message, and its record with it.
  expect(await stack.redis.hexists(keys.invoices(String(bot.id)), `${chat.id}:1`)).toBe(0);
});

it("a request log entry keeps its first parameters up to the cap and counts the rest", async () => {
  const bot = await stack.platform.createBot();
  const call = botClient(stack.gatewayUrl, bot.token);
  // 500 parameters of 1,000 characters: each is under the per-value cut, together 30 times the cap.
  const params = Object.fromEntries(Array.from({ length: 500 }, (_, i) => [`p${i}`, "v".repeat(1000)]));
  expect((await call("getMe", params)).status).toBe(200);
  const entries = () => stack.redis.lrange(keys.requestLog(String(bot.id)), 0, -1);
  await expect.poll(async () => (await entries()).length, { timeout: 10_000 }).toBe(1);
  const [entry] = await entries();
  expect(entry!.length).toBeLessThan(MAX_LOGGED_PARAMS_CHARS + 1024);
  const logged = JSON.parse(entry!).params as Record<string, string>;
  const kept = Object.keys(logged).length - 1;
  expect(kept).toBeGreaterThan(10);
  expect(logged[TRUNCATED_PARAMS]).toBe(`${500 - kept} more parameters not logged`);
});
