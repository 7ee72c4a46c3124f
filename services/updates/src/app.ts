import type { FastifyInstance } from "fastify";
import type { Redis } from "ioredis";
import { ActivityWaits, OwnEndpoints, Registry, type Logger } from "@starpost/runtime";
import { type DeliveryQueues } from "@starpost/update-log";
import {
  guardInternal,
  registerMethodRoute,
  registerOps,
  createHttpServer,
  type ReplicaWaitOptions,
  registerReplicaWait,
} from "@starpost/http";
import { registerPlatformRoutes } from "./platform/routes.ts";
import { WEBHOOK_METHODS } from "./webhook/methods.ts";

export interface UpdatesDeps {
  redis: Redis;
  /** READY_TIMEOUT_MS: how long /readyz waits for its checks. */
  readyTimeoutMs?: number;
  /** BullMQ queues of webhook drain jobs. */
  deliveryQueue: DeliveryQueues;
  logger: Logger;
  internalToken: string;
  allowPrivateNetworks: boolean;
  registry?: Registry;
  /** REDIS_WAIT_REPLICAS: answers wait until replicas have the writes (off by default). */
  replicaWait?: ReplicaWaitOptions;
}

/** Builds the updates service: update log, platform ingestion, webhook settings. */
export async function buildApp(deps: UpdatesDeps): Promise<FastifyInstance> {
  const app = createHttpServer(deps.logger, { bodyLimit: 16 * 1024 * 1024 });
  const registry = deps.registry ?? new Registry("updates");
  const dropped = registry.counter("starpost_updates_dropped_total", "Updates dropped at creation, by reason", [
    "reason",
  ]);

  guardInternal(app, deps.internalToken);
  if (deps.replicaWait) registerReplicaWait(app, deps.redis, deps.logger, deps.replicaWait);
  registerOps(app, {
    registry,
    ready: async () => (await deps.redis.ping()) === "PONG",
    timeoutMs: deps.readyTimeoutMs,
  });
  const activityWaits = new ActivityWaits(deps.redis);
  // Held activity reads end when the service stops (they would hold the close up to 30 s).
  app.addHook("preClose", async () => activityWaits.close());
  registerPlatformRoutes(app, {
    redis: deps.redis,
    activityWaits,
    deliveryQueue: deps.deliveryQueue,
    onDropped: (reason) => dropped.inc({ reason }),
  });
  registerMethodRoute(app, WEBHOOK_METHODS, {
    redis: deps.redis,
    deliveryQueue: deps.deliveryQueue,
    logger: deps.logger,
    allowPrivateNetworks: deps.allowPrivateNetworks,
    ownEndpoints: new OwnEndpoints(deps.redis),
  });
  return app;
}
