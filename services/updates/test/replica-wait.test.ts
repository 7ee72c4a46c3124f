import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { keys, parseConfig, redisTarget, UpdatesConfig } from "@starpost/shared";
import { createLogger, createRedis, type Redis } from "@starpost/runtime";
import { createDeliveryQueue } from "@starpost/update-log";
import { INTERNAL_TOKEN_HEADER, waitForReplicas } from "@starpost/http";
import { eventually, startRedis, startStack, userMessage, type RedisServer, type TestStack } from "@starpost/testkit";
import { buildApp } from "../src/app.ts";

/** REDIS_WAIT_REPLICAS: a platform push is acknowledged only once a replica has it. */
let stack: TestStack;
let replica: RedisServer | undefined;
const clients: Redis[] = [];
const TOKEN = "replica-wait-internal-token";

beforeAll(async () => {
  stack = await startStack();
});
afterAll(async () => {
  await Promise.all(clients.map((c) => c.quit().catch(() => undefined)));
  await replica?.stop();
  await stack.close();
});

async function updatesWithWait(timeoutMs: number) {
  const logger = createLogger("test", "silent");
  const connect = (role: string, bullmq = false) => {
    const c = createRedis({ url: stack.redisServer.url, logger, role, bullmq });
    clients.push(c);
    return c;
  };
  const deliveryQueue = createDeliveryQueue(connect("wait-queue", true));
  const redis = connect("wait-updates");
  const app = await buildApp({
    redis,
    deliveryQueue,
    logger,
    internalToken: TOKEN,
    allowPrivateNetworks: true,
    replicaWait: { replicas: 1, timeoutMs },
  });
  const push = async (botId: number) =>
    app.inject({
      method: "POST",
      url: `/internal/platform/bots/${botId}/updates`,
      headers: { [INTERNAL_TOKEN_HEADER]: TOKEN },
      payload: userMessage(5, "hi"),
    });
  return { app, push, close: async () => (await app.close(), await deliveryQueue.close()) };
}

describe("REDIS_WAIT_REPLICAS=1", () => {
  it("answers 500 when no replica confirms in time, and the update id once one does", async () => {
    const bot = await stack.platform.createBot();
    const u = await updatesWithWait(3000);
    try {
      const lonely = await u.push(bot.id);
      expect(lonely.statusCode).toBe(500);
      expect(lonely.json()).toEqual({ ok: false, error_code: 500, description: "Internal Server Error" });

      replica = await startRedis({ replicaOf: stack.redisServer.port });
      const replicaClient = createRedis({ url: replica.url, logger: stack.logger, role: "replica-check" });
      clients.push(replicaClient);
      await eventually(
        async () => (await replicaClient.info("replication")).includes("master_link_status:up"),
        20_000,
        "the replica to sync",
      );
      const confirmed = await u.push(bot.id);
      expect(confirmed.statusCode).toBe(200);
      const updateId = confirmed.json().result.update_id as number;
      // The replica already has it when the answer comes.
      const onReplica = await replicaClient.xrange(keys.updateLog(bot.id), `${updateId}-0`, `${updateId}-0`);
      expect(onReplica).toHaveLength(1);
    } finally {
      await u.close();
    }
  });
});

describe("REDIS_WAIT_TIMEOUT_MS longer than REDIS_COMMAND_TIMEOUT_MS", () => {
  it("WAIT gets its whole wait on the service's connection, not cut by the command timeout", async () => {
    const alone = await startRedis(); // no replica: WAIT waits its whole timeout, then answers 0
    const config = parseConfig(UpdatesConfig, {
      INTERNAL_TOKEN: TOKEN,
      REDIS_URL: alone.url,
      REDIS_WAIT_REPLICAS: "1",
      REDIS_WAIT_TIMEOUT_MS: "1500",
      REDIS_COMMAND_TIMEOUT_MS: "300",
    });
    const redis = createRedis({
      ...redisTarget(config, { sendsWait: true }),
      logger: createLogger("test", "silent"),
      role: "wait-timeout",
    });
    try {
      const bot = await stack.platform.createBot();
      const started = Date.now();
      const confirmed = await waitForReplicas(redis, String(bot.id), { replicas: 1, timeoutMs: 1500 });
      expect(confirmed).toBe(0);
      expect(Date.now() - started).toBeGreaterThanOrEqual(1400);
    } finally {
      await redis.quit().catch(() => undefined);
      await alone.stop();
    }
  });
});
