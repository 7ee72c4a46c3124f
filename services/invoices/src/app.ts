import type { FastifyInstance } from "fastify";
import type { Queue } from "bullmq";
import type { Redis } from "ioredis";
import {
  guardInternal,
  registerMethodRoute,
  registerOps,
  Registry,
  createHttpServer,
  type DrainJob,
  type Logger,
} from "@starpost/shared";

export interface InvoicesDeps {
  redis: Redis;
  /** BullMQ queue of webhook drain jobs (payment updates go to bots with webhooks too). */
  deliveryQueue: Queue<DrainJob>;
  logger: Logger;
  internalToken: string;
  registry?: Registry;
}

/** Builds the invoices service: sendInvoice, the payment state machine, the Star ledger. */
export async function buildApp(deps: InvoicesDeps): Promise<FastifyInstance> {
  const app = createHttpServer(deps.logger, { bodyLimit: 2 * 1024 * 1024 });
  const registry = deps.registry ?? new Registry();
  guardInternal(app, deps.internalToken);
  registerOps(app, { registry, ready: async () => (await deps.redis.ping()) === "PONG" });
  registerMethodRoute(app, {});
  return app;
}
