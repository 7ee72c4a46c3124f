import { GatewayConfig, loadConfig, redisTarget } from "@starpost/shared";
import { announceEndpoints, createLogger, createRedis, onShutdown } from "@starpost/runtime";
import { ServiceClient } from "@starpost/http";
import { buildApp } from "./app.ts";
import { BotCache } from "./bot-cache.ts";

const config = loadConfig("gateway", GatewayConfig);
const logger = createLogger("gateway", config.LOG_LEVEL);
const redis = createRedis({ ...redisTarget(config), logger, role: "gateway" });
const subscriber = createRedis({ ...redisTarget(config), logger, role: "gateway-subscriber" });
const services = new ServiceClient(
  { invoices: config.INVOICES_URL, updates: config.UPDATES_URL },
  config.INTERNAL_TOKEN,
  config.INTERNAL_SOCKET_DIR,
);
// On Redis Cluster every call reads the bot record (see BotCache).
const botCache = config.REDIS_CLUSTER_NODES?.length ? undefined : new BotCache(config.REDIS_URL, logger);
const app = await buildApp({
  redis,
  subscriber,
  services,
  logger,
  platformToken: config.PLATFORM_TOKEN,
  botCache,
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
