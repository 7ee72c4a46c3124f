import { GatewayConfig, loadConfig, redisTarget } from "@starpost/shared";
import { announceEndpoints, createLogger, createRedis, onShutdown, Registry } from "@starpost/runtime";
import { ServiceClient } from "@starpost/http";
import { buildApp } from "./app.ts";
import { BotCache } from "./bot-cache.ts";

const config = loadConfig("gateway", GatewayConfig);
const logger = createLogger("gateway", config.LOG_LEVEL);
const registry = new Registry("gateway");
const redis = createRedis({ ...redisTarget(config), logger, registry, role: "gateway" });
const subscriber = createRedis({
  ...redisTarget(config),
  logger,
  registry,
  role: "gateway-subscriber",
  blocking: true,
});
const services = new ServiceClient(
  { invoices: config.INVOICES_URL, updates: config.UPDATES_URL },
  config.INTERNAL_TOKEN,
  config.INTERNAL_SOCKET_DIR,
);
// On Redis Cluster every call reads the bot record (see BotCache).
const botCache = config.REDIS_CLUSTER_NODES?.length
  ? undefined
  : new BotCache(config.REDIS_URL, logger, config.REDIS_COMMAND_TIMEOUT_MS);
const app = await buildApp({
  redis,
  subscriber,
  services,
  logger,
  registry,
  platformToken: config.PLATFORM_TOKEN,
  readyTimeoutMs: config.READY_TIMEOUT_MS,
  botCache,
  limits: config,
});

// Recorded before it listens, so no webhook reaches it from its first request on.
const endpoints = await announceEndpoints(redis, "gateway", { host: config.HOST, port: config.PORT });
await app.listen({ port: config.PORT, host: config.HOST });
onShutdown(
  logger,
  async () => {
    await app.close();
    await endpoints.withdraw();
    await services.close();
    await redis.quit();
    await subscriber.quit();
  },
  { redis: [redis, subscriber] },
);
