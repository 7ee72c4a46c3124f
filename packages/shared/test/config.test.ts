import { describe, expect, it } from "vitest";
import { parseConfig, redisTarget, UpdatesConfig } from "@starpost/shared";

/** What every service needs set. */
const base = { INTERNAL_TOKEN: "config-test-internal-token" };

describe("INTERNAL_TOKEN", () => {
  it("is required, at least 16 characters, and the one line says how to make one", () => {
    for (const env of [{}, { INTERNAL_TOKEN: "short" }]) {
      expect(() => parseConfig(UpdatesConfig, env)).toThrow(
        /^invalid environment variable INTERNAL_TOKEN: [^\n]*openssl rand -hex 24\)$/,
      );
    }
    expect(parseConfig(UpdatesConfig, base).INTERNAL_TOKEN).toBe(base.INTERNAL_TOKEN);
  });
});

describe("Redis settings", () => {
  it("REDIS_CLUSTER_NODES takes host:port seeds and switches to cluster mode; unset keeps REDIS_URL", () => {
    const cluster = parseConfig(UpdatesConfig, { ...base, REDIS_CLUSTER_NODES: "10.0.0.1:7000,redis-node-2:7001" });
    expect(redisTarget(cluster).clusterNodes).toEqual([
      { host: "10.0.0.1", port: 7000 },
      { host: "redis-node-2", port: 7001 },
    ]);
    const single = parseConfig(UpdatesConfig, { ...base, REDIS_URL: "redis://10.0.0.5:6379" });
    expect(redisTarget(single)).toEqual({
      url: "redis://10.0.0.5:6379",
      clusterNodes: undefined,
      commandTimeoutMs: 2_000,
    });
    expect(parseConfig(UpdatesConfig, base).REDIS_WAIT_REPLICAS).toBe(0);
  });

  it("the connection that sends WAIT times out after the wait plus REDIS_COMMAND_TIMEOUT_MS", () => {
    const waiting = parseConfig(UpdatesConfig, { ...base, REDIS_WAIT_REPLICAS: "1", REDIS_WAIT_TIMEOUT_MS: "30000" });
    expect(redisTarget(waiting, { sendsWait: true }).commandTimeoutMs).toBe(32_000);
    expect(redisTarget(waiting).commandTimeoutMs).toBe(2_000);
    expect(redisTarget(parseConfig(UpdatesConfig, base), { sendsWait: true }).commandTimeoutMs).toBe(2_000);
  });

  for (const [name, value] of [
    ["REDIS_CLUSTER_NODES", "10.0.0.1"],
    ["REDIS_CLUSTER_NODES", "10.0.0.1:7000,"],
    ["REDIS_CLUSTER_NODES", "10.0.0.1:70000"],
    ["REDIS_CLUSTER_NODES", "a:1 b:2"],
    ["REDIS_WAIT_REPLICAS", "-1"],
    ["REDIS_WAIT_REPLICAS", "one"],
    ["REDIS_WAIT_TIMEOUT_MS", "0"],
    ["REDIS_COMMAND_TIMEOUT_MS", "0"],
    ["REDIS_COMMAND_TIMEOUT_MS", "2s"],
    ["READY_TIMEOUT_MS", "50"],
  ] as const) {
    it(`refuses ${name}=${value} with one line naming it`, () => {
      expect(() => parseConfig(UpdatesConfig, { ...base, [name]: value })).toThrow(
        new RegExp(`^invalid environment variable ${name}: [^\\n]+$`),
      );
    });
  }
});
