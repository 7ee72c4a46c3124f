import type { FastifyInstance } from "fastify";
import type { Redis } from "ioredis";
import { createHttpServer, registerOps, Registry, type Logger } from "@starpost/shared";

export interface WorkerDeps {
  redis: Redis;
  logger: Logger;
  registry: Registry;
}

/** The worker's small HTTP face: /healthz, /readyz and /metrics for operators. */
export async function buildOpsApp(deps: WorkerDeps): Promise<FastifyInstance> {
  const app = createHttpServer(deps.logger);
  registerOps(app, { registry: deps.registry, ready: async () => (await deps.redis.ping()) === "PONG" });
  return app;
}
