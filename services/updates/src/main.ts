import { loadConfig, UpdatesConfig, redisTarget, replicaWait } from "@starpost/shared";
import { announceEndpoints, createLogger, createRedis, onShutdown, Registry } from "@starpost/runtime";
import { createDeliveryQueue } from "@starpost/update-log";
import { listenInternalSocket } from "@starpost/http";
import { buildApp } from "./app.ts";

const config = loadConfig("updates", UpdatesConfig);
const logger = createLogger("updates", config.LOG_LEVEL);
const registry = new Registry("updates");
// It sends WAIT (REDIS_WAIT_REPLICAS): its command timeout leaves room for the whole wait.
const redis = createRedis({ ...redisTarget(config, { sendsWait: true }), logger, registry, role: "updates" });
const queueConnection = createRedis({ ...redisTarget(config), logger, registry, role: "updates-queue", bullmq: true });
const deliveryQueue = createDeliveryQueue(queueConnection, logger);
// A process of this service may have died between a step and its drain request: the workers sweep once.
deliveryQueue.askSweep();
const app = await buildApp({
  redis,
  deliveryQueue,
  logger,
  registry,
  internalToken: config.INTERNAL_TOKEN,
  readyTimeoutMs: config.READY_TIMEOUT_MS,
  allowPrivateNetworks: config.WEBHOOK_ALLOW_PRIVATE_NETWORKS,
  replicaWait: replicaWait(config),
});

// Recorded before it listens, so no webhook reaches it from its first request on.
const endpoints = await announceEndpoints(redis, "updates", { host: config.HOST, port: config.UPDATES_PORT });
// The socket first: the TCP port answering /readyz is what says the service is up.
await listenInternalSocket(app, config.INTERNAL_SOCKET_DIR, "updates");
await app.listen({ port: config.UPDATES_PORT, host: config.HOST });
onShutdown(
  logger,
  async () => {
    await app.close();
    await endpoints.withdraw();
    await deliveryQueue.close();
    await redis.quit();
  },
  { redis: [redis, queueConnection] },
);
