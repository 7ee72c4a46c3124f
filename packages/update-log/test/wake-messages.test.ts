import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Redis } from "ioredis";
import { channels, keys, type WakeMessage } from "@starpost/shared";
import { createLogger, createRedis } from "@starpost/runtime";
import { createDeliveryQueue, type DeliveryQueues, pollUpdates } from "@starpost/update-log";
import { appendUpdate, eventually, startRedis, type RedisServer } from "@starpost/testkit";

describe("wake messages", () => {
  let server: RedisServer;
  let redis: Redis;
  let subscriber: Redis;
  let deliveryQueue: DeliveryQueues;
  const heard: string[] = [];

  beforeAll(async () => {
    server = await startRedis();
    const logger = createLogger("test", "silent");
    redis = createRedis({ url: server.url, logger, role: "test" });
    deliveryQueue = createDeliveryQueue(redis);
    subscriber = createRedis({ url: server.url, logger, role: "test-subscriber" });
    subscriber.on("smessage", (_channel: string, message: string) => heard.push(message));
  });
  afterAll(async () => {
    await deliveryQueue?.close();
    await Promise.all([redis?.quit(), subscriber?.quit()]);
    await server?.stop();
  });

  it("TypeScript reads what TypeScript writes, for every kind", () => {
    const all: WakeMessage[] = [
      { kind: "grew", botId: "42" },
      { kind: "grew", botId: "42", updates: { firstId: 9, count: 2, json: '[{"update_id":9},{"update_id":10}]' } },
      { kind: "conflict", botId: "42", pollId: "r1.7" },
      { kind: "webhook", botId: "42" },
      { kind: "webhook_deleted", botId: "42" },
    ];
    for (const m of all) expect(channels.wake.decode(channels.wake.encode(m))).toEqual(m);
    expect(channels.wake.decode("42 something")).toBeUndefined();
  });

  it("TypeScript reads what the Lua scripts write (wake.lua): a newer poll's conflict and a grown log with its updates", async () => {
    const botId = "7001";
    await subscriber.ssubscribe(channels.wake.name(botId));
    const claim = (pollId: string) =>
      pollUpdates(redis, botId, { offset: 0, limit: 100, pollId, mode: "claim", ownerTtlMs: 10_000 });
    expect((await claim("r1.1")).outcome).toBe("wait");
    expect((await claim("r1.2")).outcome).toBe("wait");
    await eventually(() => heard.length >= 1, 10_000, "the conflict message");
    expect(heard.map((raw) => channels.wake.decode(raw))).toEqual([{ kind: "conflict", botId, pollId: "r1.1" }]);

    await redis.hset(keys.bot(botId), "id", botId); // the log takes updates only for a bot that exists
    const callback = { id: "1", from: { id: 5, is_bot: false, first_name: "A" }, chat_instance: "1", data: "x" };
    expect((await appendUpdate({ redis, deliveryQueue }, botId, "callback_query", callback)).outcome).toBe("appended");
    await eventually(() => heard.length >= 2, 10_000, "the grew message");
    // The update as the reference writes it (JsonUpdate, WebhookActor.h at 01a3679, line 230): a newline after the id.
    const json = `[{"update_id":1,\n"callback_query":${JSON.stringify(callback)}}]`;
    expect(channels.wake.decode(heard[1]!)).toEqual({ kind: "grew", botId, updates: { firstId: 1, count: 1, json } });
  });

  it("an append of more than 64 KB of updates wakes without carrying them", async () => {
    const botId = "7002";
    await subscriber.ssubscribe(channels.wake.name(botId));
    await redis.hset(keys.bot(botId), "id", botId);
    const from = heard.length;
    const big = {
      id: "1",
      from: { id: 5, is_bot: false, first_name: "A" },
      chat_instance: "1",
      data: "x".repeat(70_000),
    };
    expect((await appendUpdate({ redis, deliveryQueue }, botId, "callback_query", big)).outcome).toBe("appended");
    await eventually(() => heard.length > from, 10_000, "the grew message");
    expect(channels.wake.decode(heard[from]!)).toEqual({ kind: "grew", botId });
  });
});
