import type { FastifyInstance } from "fastify";
import { buildApp as buildGateway } from "@starpost/gateway";
import { buildApp as buildInvoices } from "@starpost/invoices";
import { buildApp as buildUpdates } from "@starpost/updates";
import { createDeliveryQueue, createLogger, createRedis, ServiceClient, type Logger, type Redis } from "@starpost/shared";
import { Platform } from "./bot-api.ts";
import { startRedis, type RedisServer } from "./redis-server.ts";

export const TEST_PLATFORM_TOKEN = "test-platform-token-0123456789";

export interface TestStack {
  redisServer: RedisServer;
  redis: Redis;
  gatewayUrl: string;
  updatesUrl: string;
  invoicesUrl: string;
  platform: Platform;
  logger: Logger;
  apps: FastifyInstance[];
  close(): Promise<void>;
}

/**
 * The gateway, updates and invoices services in this process, each on its own 127.0.0.1 port,
 * on a private redis-server. (The end-to-end suite runs them as separate processes instead.)
 */
export async function startStack(opts: { logger?: Logger; redisServer?: RedisServer } = {}): Promise<TestStack> {
  const redisServer = opts.redisServer ?? (await startRedis());
  const logger = opts.logger ?? createLogger("test", process.env.TEST_LOG_LEVEL ?? "silent");
  const clients: Redis[] = [];
  const redisFor = (role: string, bullmq = false) => {
    const c = createRedis({ url: redisServer.url, logger, role, bullmq });
    clients.push(c);
    return c;
  };
  const queue = createDeliveryQueue(redisFor("queue", true));
  const internalToken = "test-internal-token";

  const updates = await buildUpdates({ redis: redisFor("updates"), subscriber: redisFor("updates-subscriber"), deliveryQueue: queue, logger, internalToken, allowPrivateNetworks: true });
  const invoices = await buildInvoices({ redis: redisFor("invoices"), subscriber: redisFor("invoices-subscriber"), deliveryQueue: queue, logger, internalToken });
  const updatesUrl = await updates.listen({ port: 0, host: "127.0.0.1" });
  const invoicesUrl = await invoices.listen({ port: 0, host: "127.0.0.1" });
  const services = new ServiceClient({ updates: updatesUrl, invoices: invoicesUrl }, internalToken);
  const gateway = await buildGateway({ redis: redisFor("gateway"), services, logger, platformToken: TEST_PLATFORM_TOKEN });
  const gatewayUrl = await gateway.listen({ port: 0, host: "127.0.0.1" });

  const apps = [gateway, updates, invoices];
  return {
    redisServer,
    redis: redisFor("test"),
    gatewayUrl,
    updatesUrl,
    invoicesUrl,
    platform: new Platform(gatewayUrl, TEST_PLATFORM_TOKEN),
    logger,
    apps,
    async close() {
      for (const app of apps) await app.close();
      await services.close();
      await queue.close();
      await Promise.all(clients.map((c) => c.quit().catch(() => undefined)));
      if (!opts.redisServer) await redisServer.stop();
    },
  };
}
