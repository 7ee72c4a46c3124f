import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Redis } from "ioredis";
import { createLogger, createRedis, Registry } from "@starpost/runtime";
import { metricIn, startRedis, type RedisServer } from "@starpost/testkit";

let server: RedisServer;
let registry: Registry;
let timed: Redis;
let other: Redis;

beforeAll(async () => {
  const logger = createLogger("test", "silent");
  server = await startRedis();
  registry = new Registry("test");
  timed = createRedis({ url: server.url, logger, registry, role: "timed" });
  other = createRedis({ url: server.url, logger, role: "other" });
  await timed.ping();
  await other.ping();
});
afterAll(async () => {
  await Promise.all([timed?.quit(), other?.quit()]);
  await server?.stop();
});

/**
 * The latency histogram wraps ioredis's `sendCommand` (redis-latency.ts): these fail if a new
 * ioredis stops sending every kind of command through it.
 */
describe("Redis command latency (starpost_redis_command_duration_seconds)", () => {
  const count = async () =>
    metricIn(await registry.render(), "starpost_redis_command_duration_seconds_count", 'role="timed"');
  const sum = async () =>
    metricIn(await registry.render(), "starpost_redis_command_duration_seconds_sum", 'role="timed"');

  it("observes each command once: plain, auto-pipelined, in a pipeline and Lua steps; other clients are not timed", async () => {
    const before = await count();
    await timed.set("a", "1");
    await Promise.all([timed.get("a"), timed.incr("n"), timed.hset("h", "f", "v")]); // auto-pipelined
    await timed.pipeline().get("a").get("n").exec();
    await timed.eval("return redis.call('GET', KEYS[1])", 1, "a");
    await other.get("a");
    expect((await count()) - before).toBe(7);
  });

  it("renders as a Prometheus histogram: cumulative buckets, +Inf equal to the count, the service label", async () => {
    const text = await registry.render();
    expect(text).toContain("# TYPE starpost_redis_command_duration_seconds histogram");
    const bucket = (le: string) =>
      metricIn(text, "starpost_redis_command_duration_seconds_bucket", `le="${le}",role="timed"`);
    expect(bucket("0.0001")).toBeLessThanOrEqual(bucket("0.01"));
    expect(bucket("0.01")).toBeLessThanOrEqual(bucket("10"));
    expect(bucket("+Inf")).toBe(await count());
    expect(text).toMatch(/^starpost_redis_command_duration_seconds_count\{role="timed",service="test"\} \d+$/m);
  });

  it("leaves blocking reads out", async () => {
    const before = await count();
    expect(await timed.blpop("empty-list", 0.05)).toBeNull();
    expect(await count()).toBe(before);
  });

  it("counts the time a command waits for Redis", async () => {
    const before = await sum();
    // Paused 1 s, so the SET waits at least 0.2 s of it even if it goes out late on a loaded machine.
    await other.call("CLIENT", "PAUSE", "1000", "WRITE");
    await timed.set("paused", "1");
    expect((await sum()) - before).toBeGreaterThanOrEqual(0.2);
  });
});

/**
 * starpost's clients autopipeline, so every command goes through an ioredis Pipeline. As published,
 * each Pipeline defined its own `length` getter, which V8 keeps from its old generation: it held
 * every batch's commands alive through scavenges (docs/performance.md). patches/ioredis@5.11.1.patch
 * puts the getter on the prototype; this fails if a reinstall or an upgrade loses the patch.
 */
describe("ioredis's Pipeline, as starpost installs it", () => {
  it("has no getter of its own: `length` comes from the prototype and counts the queued commands", async () => {
    const pipeline = other.pipeline();
    expect(Object.getOwnPropertyDescriptor(pipeline, "length")).toBeUndefined();
    pipeline.set("p:k", "v").get("p:k");
    expect(pipeline.length).toBe(2);
    expect(await pipeline.exec()).toEqual([
      [null, "OK"],
      [null, "v"],
    ]);
  });

  it("still answers each autopipelined command with its own reply", async () => {
    const replies = await Promise.all([
      other.incr("p:n"),
      other.incr("p:n"),
      other.get("p:k"),
      other.hset("p:h", "f", "1"),
    ]);
    expect(replies).toEqual([1, 2, "v", 1]);
  });
});
