import { afterAll, beforeAll } from "vitest";
import { Registry, createRedis } from "@starpost/runtime";
import { ServiceClient } from "@starpost/http";
import { startStack, type Receiver, type TestStack } from "@starpost/testkit";
import { createDeliveryQueue } from "@starpost/update-log";
import { buildWorker, type DeliveryWorkerDeps } from "../src/app.ts";

/** A delivery worker in this process on the stack's Redis, with test-friendly timings. */
export function startWorker(
  stack: TestStack,
  overrides: Partial<Omit<DeliveryWorkerDeps, "sender">> & { sender?: Partial<DeliveryWorkerDeps["sender"]> } = {},
) {
  // As main.ts: the worker's commands are timed into its registry.
  const registry = new Registry("webhook-worker");
  const redis = createRedis({ url: stack.redisServer.url, logger: stack.logger, registry, role: "test-worker" });
  const connection = createRedis({
    url: stack.redisServer.url,
    logger: stack.logger,
    registry,
    role: "test-worker-queue",
    bullmq: true,
  });
  const subscriber = createRedis({
    url: stack.redisServer.url,
    logger: stack.logger,
    registry,
    role: "test-worker-subscriber",
  });
  const services = new ServiceClient({ invoices: stack.invoicesUrl, updates: stack.updatesUrl }, "test-internal-token");
  const { sender, ...rest } = overrides;
  const worker = buildWorker({
    redis,
    connection,
    subscriber,
    logger: stack.logger,
    registry,
    services,
    concurrency: 16,
    lockDurationMs: 5000,
    stalledIntervalMs: 2000,
    reconcileMs: 500,
    backoffScale: 0.01,
    pendingSample: 100,
    slowMs: 1000,
    ...rest,
    sender: {
      allowPrivateNetworks: true,
      telegramHeaderAlias: true,
      timeoutMs: 60_000,
      replyMaxBytes: 1024 * 1024,
      replyBudgetBytes: 32 * 1024 * 1024,
      ...sender,
    },
  });
  worker.start();
  return {
    registry,
    async close() {
      await worker.close();
      await services.close();
      await connection.quit();
      await subscriber.quit();
      await redis.quit();
    },
  };
}

/** Per chat, the update_ids received, in arrival order. */
export function byChat(updates: any[]): Map<number, number[]> {
  const out = new Map<number, number[]>();
  for (const u of updates) {
    const chat = u.message?.chat?.id ?? 0;
    if (!out.has(chat)) out.set(chat, []);
    out.get(chat)!.push(u.update_id);
  }
  return out;
}

export { eventually } from "@starpost/testkit";

/**
 * A stack (no worker) with the delivery queues opened on a connection of their own, to look at
 * drain jobs, and the receivers a test starts: all closed by `close`.
 */
async function startQueueStack() {
  const stack = await startStack();
  const connection = createRedis({
    url: stack.redisServer.url,
    logger: stack.logger,
    role: "test-queue",
    bullmq: true,
  });
  const queues = createDeliveryQueue(connection);
  const receivers: Receiver[] = [];
  return {
    stack,
    queues,
    receivers,
    async close() {
      for (const r of receivers) await r.close();
      await queues.close();
      await connection.quit();
      await stack.close();
    },
  };
}

/** A test file's queue stack (startQueueStack): started before its tests, closed after them. */
export function useQueueStack() {
  const t = {} as Awaited<ReturnType<typeof startQueueStack>>;
  beforeAll(async () => void Object.assign(t, await startQueueStack()));
  afterAll(() => t.close?.());
  return t;
}
