import { createDeliveryQueue, createLogger, createRedis, InvoicesConfig, loadConfig, onShutdown } from "@starpost/shared";
import { buildApp } from "./app.ts";

const config = loadConfig("invoices", InvoicesConfig);
const logger = createLogger("invoices", config.LOG_LEVEL);
const redis = createRedis({ url: config.REDIS_URL, logger, role: "invoices" });
const deliveryQueue = createDeliveryQueue(createRedis({ url: config.REDIS_URL, logger, role: "invoices-queue", bullmq: true }));
const app = await buildApp({ redis, deliveryQueue, logger, internalToken: config.INTERNAL_TOKEN });

await app.listen({ port: config.INVOICES_PORT, host: config.HOST });
onShutdown(logger, async () => {
  await app.close();
  await deliveryQueue.close();
  await redis.quit();
});
