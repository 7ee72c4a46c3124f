import { Registry, createRedis } from "@starpost/runtime";
import { ServiceClient } from "@starpost/http";
import type { TestStack } from "@starpost/testkit";
import { buildWorker, type DeliveryWorkerDeps } from "../src/app.ts";

/** A delivery worker in this process on the stack's Redis, with test-friendly timings. */
export function startWorker(
  stack: TestStack,
  overrides: Partial<Omit<DeliveryWorkerDeps, "sender">> & { sender?: Partial<DeliveryWorkerDeps["sender"]> } = {},
) {
  const redis = createRedis({ url: stack.redisServer.url, logger: stack.logger, role: "test-worker" });
  const connection = createRedis({
    url: stack.redisServer.url,
    logger: stack.logger,
    role: "test-worker-queue",
    bullmq: true,
  });
  const subscriber = createRedis({ url: stack.redisServer.url, logger: stack.logger, role: "test-worker-subscriber" });
  const services = new ServiceClient({ invoices: stack.invoicesUrl, updates: stack.updatesUrl }, "test-internal-token");
  const registry = new Registry("webhook-worker");
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
    ...rest,
    sender: { allowPrivateNetworks: true, telegramHeaderAlias: true, timeoutMs: 60_000, ...sender },
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
