import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { keys } from "@starpost/shared";
import {
  createLogger,
  createRedis,
  readRequests,
  REQUEST_LOG_SIZE,
  RequestLogWriter,
  type Redis,
  type RequestLogEntry,
} from "@starpost/runtime";
import { startRedis, type RedisServer } from "@starpost/testkit";

/** The request log's writes: batched while Redis is busy, yet every entry kept, in call order. */
let server: RedisServer;
let redis: Redis;

beforeAll(async () => {
  server = await startRedis();
  redis = createRedis({ url: server.url, logger: createLogger("test", "silent"), role: "test" });
});
afterAll(async () => {
  await redis.quit();
  await server.stop();
});

const entry = (n: number): RequestLogEntry => ({
  date: 0,
  method: `call${n}`,
  params: {},
  status: 200,
  ok: true,
  duration_ms: 0,
});

describe("RequestLogWriter", () => {
  it("writes entries added in one turn and during a write, in order, newest 100 kept, only for bots that exist", async () => {
    await redis.hset(keys.bot("7001"), "id", "7001");
    const errors: Error[] = [];
    const log = new RequestLogWriter(redis, (err) => errors.push(err));
    for (let n = 0; n < 60; n++) log.add("7001", entry(n));
    log.add("7002", entry(0)); // no such bot
    // Later turns, while the first write is still on its way.
    for (let n = 60; n < 150; n++) {
      await new Promise((resolve) => setImmediate(resolve));
      log.add("7001", entry(n));
    }
    await log.drain();
    const written = await readRequests(redis, "7001", REQUEST_LOG_SIZE);
    expect(written.map((e) => e.method)).toEqual(Array.from({ length: 100 }, (_, i) => `call${i + 50}`));
    expect(await redis.exists(keys.requestLog("7002"))).toBe(0);
    expect(errors).toEqual([]);
  });

  it("keeps each bot's entries in order when several bots' calls are written together", async () => {
    await redis.hset(keys.bot("7003"), "id", "7003");
    await redis.hset(keys.bot("7004"), "id", "7004");
    const errors: Error[] = [];
    const log = new RequestLogWriter(redis, (err) => errors.push(err));
    for (let n = 0; n < 10; n++) log.add(n % 2 ? "7003" : "7004", entry(n));
    await log.drain();
    expect((await readRequests(redis, "7003", REQUEST_LOG_SIZE)).map((e) => e.method)).toEqual([
      "call1",
      "call3",
      "call5",
      "call7",
      "call9",
    ]);
    expect((await readRequests(redis, "7004", REQUEST_LOG_SIZE)).map((e) => e.method)).toEqual([
      "call0",
      "call2",
      "call4",
      "call6",
      "call8",
    ]);
    expect(errors).toEqual([]);
  });

  it("passes a failed write to its error handler", async () => {
    const other = createRedis({ url: server.url, logger: createLogger("test", "silent"), role: "test" });
    await other.quit();
    const errors: Error[] = [];
    const log = new RequestLogWriter(other, (err) => errors.push(err));
    log.add("7001", entry(0));
    await log.drain();
    expect(errors).toHaveLength(1);
  });
});
