import type { FastifyInstance } from "fastify";
import { BotCache, buildApp as buildGateway } from "@starpost/gateway";
import { buildApp as buildInvoices } from "@starpost/invoices";
import { buildApp as buildUpdates } from "@starpost/updates";
import { createLogger, createRedis, type Logger, type Redis } from "@starpost/runtime";
import { createDeliveryQueue, type DeliveryQueues } from "@starpost/update-log";
import { ServiceClient } from "@starpost/http";
import { GatewayLimits } from "@starpost/shared";
import { Platform } from "./bot-api.ts";
import { clusterMode, SpreadingPlatform, startRedisCluster, type RedisCluster } from "./redis-cluster.ts";
import { startRedis, type RedisServer } from "./redis-server.ts";

export const TEST_PLATFORM_TOKEN = "test-platform-token-0123456789";

export interface TestStack {
  /** the private redis-server (absent on a cluster). */
  redisServer: RedisServer;
  /** the private Redis Cluster, with STARPOST_TEST_REDIS=cluster. */
  cluster?: RedisCluster;
  redis: Redis;
  /** the services' webhook delivery queues (with `redis`, an UpdateSink for appending directly). */
  deliveryQueue: DeliveryQueues;
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
 *
 * With STARPOST_TEST_REDIS=cluster they run on a private Redis Cluster, two replicas of each:
 * bots call the first gateway (which calls the first updates and invoices), the platform calls
 * the second (which calls the second ones), so every flow crosses replicas.
 */
export async function startStack(
  opts: { logger?: Logger; redisServer?: RedisServer; gatewayLimits?: Partial<GatewayLimits> } = {},
): Promise<TestStack> {
  const cluster = !opts.redisServer && clusterMode() ? await startRedisCluster() : undefined;
  const redisServer = opts.redisServer ?? (cluster ? undefined : await startRedis());
  const logger = opts.logger ?? createLogger("test", process.env.TEST_LOG_LEVEL ?? "silent");
  const clients: Redis[] = [];
  const redisFor = (role: string, bullmq = false) => {
    const c = createRedis({
      url: redisServer?.url ?? "redis://127.0.0.1:1",
      clusterNodes: cluster?.clusterNodes,
      logger,
      role,
      bullmq,
    });
    clients.push(c);
    return c;
  };
  const queue = createDeliveryQueue(redisFor("queue", true));
  const internalToken = "test-internal-token";

  const apps: FastifyInstance[] = [];
  const clientsOfServices: ServiceClient[] = [];
  const replica = async () => {
    const updates = await buildUpdates({
      redis: redisFor("updates"),
      deliveryQueue: queue,
      logger,
      internalToken,
      allowPrivateNetworks: true,
    });
    const invoices = await buildInvoices({
      redis: redisFor("invoices"),
      subscriber: redisFor("invoices-subscriber"),
      deliveryQueue: queue,
      logger,
      internalToken,
    });
    const updatesUrl = await updates.listen({ port: 0, host: "127.0.0.1" });
    const invoicesUrl = await invoices.listen({ port: 0, host: "127.0.0.1" });
    const services = new ServiceClient({ updates: updatesUrl, invoices: invoicesUrl }, internalToken);
    const botCache = redisServer ? new BotCache(redisServer.url, logger) : undefined;
    const gateway = await buildGateway({
      redis: redisFor("gateway"),
      subscriber: redisFor("gateway-subscriber"),
      services,
      logger,
      platformToken: TEST_PLATFORM_TOKEN,
      botCache,
      limits: { ...GatewayLimits.parse({}), ...opts.gatewayLimits },
    });
    const gatewayUrl = await gateway.listen({ port: 0, host: "127.0.0.1" });
    apps.push(gateway, updates, invoices);
    clientsOfServices.push(services);
    return { gatewayUrl, updatesUrl, invoicesUrl };
  };
  const first = await replica();
  const platformUrl = cluster ? (await replica()).gatewayUrl : first.gatewayUrl;

  return {
    redisServer: redisServer as RedisServer,
    cluster,
    redis: redisFor("test"),
    deliveryQueue: queue,
    ...first,
    platform: cluster
      ? new SpreadingPlatform(platformUrl, TEST_PLATFORM_TOKEN, await cluster.masters())
      : new Platform(platformUrl, TEST_PLATFORM_TOKEN),
    logger,
    apps,
    async close() {
      // Gateways first, so no new calls arrive while the services finish theirs.
      for (const app of [...apps.filter((_, i) => i % 3 === 0), ...apps.filter((_, i) => i % 3 !== 0)])
        await app.close();
      for (const services of clientsOfServices) await services.close();
      await queue.close();
      await Promise.all(clients.map((c) => c.quit().catch(() => undefined)));
      if (cluster) await cluster.stop();
      else if (!opts.redisServer) await redisServer!.stop();
    },
  };
}

/**
 * How many times Redis (every master, on a cluster) has run `command` so far, by INFO
 * commandstats: calls made inside scripts count too.
 */
export async function commandCalls(stack: TestStack, command: string): Promise<number> {
  const nodes = stack.cluster ? (stack.redis as unknown as import("ioredis").Cluster).nodes("master") : [stack.redis];
  const pattern = new RegExp(`^cmdstat_${command}:calls=(\\d+)`, "m");
  let sum = 0;
  for (const node of nodes) sum += Number(pattern.exec(await node.info("commandstats"))?.[1] ?? 0);
  return sum;
}
