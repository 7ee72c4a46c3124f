import { createLogger, createRedis, loadConfig, onShutdown, Registry, WorkerConfig } from "@starpost/shared";
import { buildOpsApp } from "./app.ts";

const config = loadConfig("webhook-worker", WorkerConfig);
const logger = createLogger("webhook-worker", config.LOG_LEVEL);
const redis = createRedis({ url: config.REDIS_URL, logger, role: "worker" });
const registry = new Registry();
const app = await buildOpsApp({ redis, logger, registry });

await app.listen({ port: config.WORKER_PORT, host: config.HOST });
onShutdown(logger, async () => {
  await app.close();
  await redis.quit();
});
