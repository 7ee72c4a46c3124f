import { readFileSync } from "node:fs";
import { loadConfig, WorkerConfig, redisTarget } from "@starpost/shared";
import { announceEndpoints, createLogger, createRedis, onShutdown, Registry } from "@starpost/runtime";
import { ServiceClient } from "@starpost/http";
import { buildOpsApp, buildWorker } from "./app.ts";

const config = loadConfig("webhook-worker", WorkerConfig);
const logger = createLogger("webhook-worker", config.LOG_LEVEL);

// Node (undici) does not read the system trust store by itself: verify https webhooks against
// the operator's CA bundle, so a CA added there is trusted and self-signed certificates are not.
let ca: string | undefined;
try {
  ca = readFileSync(config.WEBHOOK_CA_FILE, "utf8");
} catch {
  logger.warn({ file: config.WEBHOOK_CA_FILE }, "CA bundle not readable; using Node's bundled roots");
}

const registry = new Registry("webhook-worker");
const redis = createRedis({ ...redisTarget(config), logger, registry, role: "worker" });
const connection = createRedis({ ...redisTarget(config), logger, registry, role: "worker-queue", bullmq: true });
const subscriber = createRedis({ ...redisTarget(config), logger, registry, role: "worker-subscriber", blocking: true });
const services = new ServiceClient(
  { invoices: config.INVOICES_URL, updates: config.UPDATES_URL },
  config.INTERNAL_TOKEN,
  config.INTERNAL_SOCKET_DIR,
);
const worker = buildWorker({
  redis,
  connection,
  subscriber,
  logger,
  registry,
  services,
  concurrency: config.WORKER_CONCURRENCY,
  lockDurationMs: config.WORKER_LOCK_MS,
  stalledIntervalMs: config.WORKER_STALLED_INTERVAL_MS,
  reconcileMs: config.WEBHOOK_RECONCILE_MS,
  backoffScale: config.WEBHOOK_BACKOFF_SCALE,
  slowMs: config.WEBHOOK_SLOW_MS,
  pendingSample: config.METRICS_PENDING_SAMPLE,
  sender: {
    allowPrivateNetworks: config.WEBHOOK_ALLOW_PRIVATE_NETWORKS,
    telegramHeaderAlias: config.WEBHOOK_TELEGRAM_HEADER_ALIAS,
    ca,
    timeoutMs: config.WEBHOOK_TIMEOUT_MS,
    replyMaxBytes: config.WEBHOOK_REPLY_MAX_BYTES,
    replyBudgetBytes: config.WEBHOOK_REPLY_BUDGET_BYTES,
  },
});
const app = await buildOpsApp({ redis, logger, registry, readyTimeoutMs: config.READY_TIMEOUT_MS });

// Recorded before it listens, so no webhook reaches it from its first request on.
const endpoints = await announceEndpoints(redis, "webhook-worker", { host: config.HOST, port: config.WORKER_PORT });
await app.listen({ port: config.WORKER_PORT, host: config.HOST });
worker.start();
logger.info({ port: config.WORKER_PORT, concurrency: config.WORKER_CONCURRENCY }, "webhook worker started");
onShutdown(
  logger,
  async () => {
    await worker.close(); // finishes the requests in flight first
    await app.close();
    await endpoints.withdraw();
    await services.close();
    await connection.quit();
    await subscriber.quit();
    await redis.quit();
  },
  { redis: [redis, connection, subscriber] },
);
