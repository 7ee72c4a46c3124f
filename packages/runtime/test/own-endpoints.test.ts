import { spawn } from "node:child_process";
import { hostname, networkInterfaces } from "node:os";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { keys } from "@starpost/shared";
import {
  addressClass,
  announceEndpoints,
  createLogger,
  createRedis,
  OwnEndpoints,
  type Redis,
} from "@starpost/runtime";
import { startRedis, type RedisServer } from "@starpost/testkit";

let server: RedisServer;
let redis: Redis;
beforeAll(async () => {
  server = await startRedis();
  redis = createRedis({ url: server.url, logger: createLogger("test", "silent"), role: "own-endpoints" });
});
afterAll(async () => {
  await redis?.quit();
  await server?.stop();
});

describe("addressClass", () => {
  it.each([
    ["127.0.0.1", "loopback"],
    ["127.4.5.6", "loopback"],
    ["0.0.0.0", "loopback"],
    ["::1", "loopback"],
    ["0:0:0:0:0:0:0:1", "loopback"],
    ["::", "loopback"],
    ["[::1]", "loopback"],
    ["::ffff:127.0.0.1", "loopback"],
    ["::FFFF:7f00:1", "loopback"],
    ["0:0:0:0:0:ffff:7f00:0001", "loopback"],
    ["::ffff:10.1.2.3", "10.1.2.3"],
    ["10.1.2.3", "10.1.2.3"],
    ["FD00:0::0001", "fd00::1"],
  ])("%s compares as %s", (ip, expected) => {
    expect(addressClass(ip)).toBe(expected);
  });
});

describe("own endpoints", () => {
  it("finds a listener under every address that reaches it, and only on its port", async () => {
    const port = 40_001;
    const announced = await announceEndpoints(redis, "updates", { host: "127.0.0.1", port });
    const own = new OwnEndpoints(redis);
    for (const ip of ["127.0.0.1", "127.0.0.2", "0.0.0.0", "::1", "::ffff:127.0.0.1"]) {
      expect({ ip, found: await own.find(ip, port) }).toEqual({ ip, found: "updates" });
    }
    expect(await own.find("127.0.0.1", port + 1)).toBeUndefined();
    expect(await own.find("203.0.113.9", port)).toBeUndefined();
    await announced.withdraw();
    expect(await new OwnEndpoints(redis).find("127.0.0.1", port)).toBeUndefined();
  });

  it("a wildcard bind is recorded under every interface address of its host", async () => {
    const port = 40_002;
    const announced = await announceEndpoints(redis, "gateway", { host: "0.0.0.0", port });
    const own = new OwnEndpoints(redis);
    for (const i of Object.values(networkInterfaces()).flat()) {
      expect({ ip: i!.address, found: await own.find(i!.address, port) }).toEqual({
        ip: i!.address,
        found: "gateway",
      });
    }
    await announced.withdraw();
  });

  it("the Redis server the process uses is its own too", async () => {
    expect(await new OwnEndpoints(redis).find("127.0.0.1", server.port)).toBe("redis");
  });

  it("replicas keep their entries when one stops; a process killed outright is dropped by the next start", async () => {
    const port = 40_003;
    const dead = await new Promise<number>((resolve) => {
      const child = spawn(process.execPath, ["-e", ""]);
      child.once("exit", () => resolve(child.pid!));
    });
    const stale = `loopback ${port} ${hostname()}/${dead}`;
    await redis.hset(keys.ownEndpoints(), stale, "webhook-worker");
    const elsewhere = `10.9.8.7 ${port} another-host/${dead}`;
    await redis.hset(keys.ownEndpoints(), elsewhere, "webhook-worker");

    const announced = await announceEndpoints(redis, "webhook-worker", { host: "127.0.0.1", port });
    const fields = await redis.hkeys(keys.ownEndpoints());
    expect(fields).not.toContain(stale);
    // Another host's processes cannot be checked from here: their entries stay.
    expect(fields).toContain(elsewhere);
    expect(fields).toContain(`loopback ${port} ${hostname()}/${process.pid}`);
    await announced.withdraw();
    expect(await redis.hkeys(keys.ownEndpoints())).toEqual([elsewhere]);
  });
});
