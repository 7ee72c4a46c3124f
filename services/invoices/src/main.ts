import { InvoicesConfig, loadConfig, redisTarget, replicaWait } from "@starpost/shared";
import { announceEndpoints, createLogger, createRedis, onShutdown, Registry } from "@starpost/runtime";
import { createDeliveryQueue } from "@starpost/update-log";
import { listenInternalSocket } from "@starpost/http";
import { buildApp } from "./app.ts";

const config = loadConfig("invoices", InvoicesConfig);
const logger = createLogger("invoices", config.LOG_LEVEL);
const registry = new Registry("invoices");
// It sends WAIT (REDIS_WAIT_REPLICAS): its command timeout leaves room for the whole wait.
const redis = createRedis({ ...redisTarget(config, { sendsWait: true }), logger, registry, role: "invoices" });
const subscriber = createRedis({
  ...redisTarget(config),
  logger,
  registry,
  role: "invoices-subscriber",
  blocking: true,
});
const queueConnection = createRedis({ ...redisTarget(config), logger, registry, role: "invoices-queue", bullmq: true });
const deliveryQueue = createDeliveryQueue(queueConnection, logger);
// A process of this service may have died between a step and its drain request: the workers sweep once.
deliveryQueue.askSweep();
const app = await buildApp({
  redis,
  subscriber,
  deliveryQueue,
  logger,
  registry,
  internalToken: config.INTERNAL_TOKEN,
  readyTimeoutMs: config.READY_TIMEOUT_MS,
  replicaWait: replicaWait(config),
});

// Recorded before it listens, so no webhook reaches it from its first request on.
const endpoints = await announceEndpoints(redis, "invoices", { host: config.HOST, port: config.INVOICES_PORT });
// The socket first: the TCP port answering /readyz is what says the service is up.
await listenInternalSocket(app, config.INTERNAL_SOCKET_DIR, "invoices");
await app.listen({ port: config.INVOICES_PORT, host: config.HOST });
onShutdown(
  logger,
  async () => {
    // Closing the app first lets waiting payments answer (their waits end at once) before Redis goes.
    await app.close();
    await endpoints.withdraw();
    await deliveryQueue.close();
    await redis.quit();
    await subscriber.quit();
  },
  { redis: [redis, subscriber, queueConnection] },
);
