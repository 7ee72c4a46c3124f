import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Redis } from "ioredis";
import { createLogger, createRedis } from "@starpost/runtime";
import { startRedis, type RedisServer } from "@starpost/testkit";

/**
 * starpost's clients autopipeline, so every command goes through an ioredis Pipeline. As published,
 * each Pipeline defined its own `length` getter, which V8 keeps from its old generation: it held
 * every batch's commands alive through scavenges (docs/performance.md). patches/ioredis@5.11.1.patch
 * puts the getter on the prototype; this fails if a reinstall or an upgrade loses the patch.
 */
describe("ioredis's Pipeline, as starpost installs it", () => {
  let server: RedisServer;
  let redis: Redis;

  beforeAll(async () => {
    server = await startRedis();
    redis = createRedis({ url: server.url, logger: createLogger("test", "silent"), role: "test" });
  });
  afterAll(async () => {
    await redis?.quit();
    await server?.stop();
  });

  it("has no getter of its own: `length` comes from the prototype and counts the queued commands", async () => {
    const pipeline = redis.pipeline();
    expect(Object.getOwnPropertyDescriptor(pipeline, "length")).toBeUndefined();
    pipeline.set("k", "v").get("k");
    expect(pipeline.length).toBe(2);
    expect(await pipeline.exec()).toEqual([
      [null, "OK"],
      [null, "v"],
    ]);
  });

  it("still answers each autopipelined command with its own reply", async () => {
    const replies = await Promise.all([redis.incr("n"), redis.incr("n"), redis.get("k"), redis.hset("h", "f", "1")]);
    expect(replies).toEqual([1, 2, "v", 1]);
  });
});
