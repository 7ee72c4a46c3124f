import type { FastifyInstance } from "fastify";
import type { Redis } from "ioredis";
import { channels } from "@starpost/shared";
import { ChannelRouter, Registry, type Logger } from "@starpost/runtime";
import { type DeliveryQueues } from "@starpost/update-log";
import {
  guardInternal,
  registerMethodRoute,
  registerPlatformRows,
  registerOps,
  createHttpServer,
  type ReplicaWaitOptions,
  registerReplicaWait,
} from "@starpost/http";
import { AnswerWaiters } from "./domain/answer-waiters.ts";
import type { InvoiceDomain } from "./domain/deps.ts";
import { INVOICE_METHODS } from "./methods.ts";
import { CHAT_ROWS } from "./routes/chats.ts";
import { PAYMENT_ROWS } from "./routes/payments.ts";
import { VIEW_ROWS } from "./routes/views.ts";
import { answer } from "./outcomes.ts";

/** Telegram gives a bot 10 s to answer a pre-checkout query. */
export const PRE_CHECKOUT_ANSWER_MS = 10_000;

export interface InvoicesDeps {
  redis: Redis;
  /** READY_TIMEOUT_MS: how long /readyz waits for its checks. */
  readyTimeoutMs?: number;
  /** the process's one subscriber connection, for its channel router (payments, presses and reads waiting for the bot). */
  subscriber: Redis;
  /** BullMQ queue of webhook drain jobs (payment updates go to bots with webhooks too). */
  deliveryQueue: DeliveryQueues;
  logger: Logger;
  internalToken: string;
  registry?: Registry;
  /** the answer deadline; only tests shorten it (the wire contract is 10 s). */
  preCheckoutAnswerMs?: number;
  /** REDIS_WAIT_REPLICAS: answers wait until replicas have the writes (off by default). */
  replicaWait?: ReplicaWaitOptions;
}

/**
 * Builds the invoices service: sendInvoice, the payment state machine, the Star ledger, and the
 * chat messages around them (sendMessage, edits, button answers, the user's side of a chat).
 */
export async function buildApp(deps: InvoicesDeps): Promise<FastifyInstance> {
  const app = createHttpServer(deps.logger, { bodyLimit: 2 * 1024 * 1024 });
  const registry = deps.registry ?? new Registry("invoices");
  const router = new ChannelRouter(deps.subscriber);
  const waiters = new AnswerWaiters(router, channels.preCheckoutAnswered);
  const chatWaiters = new AnswerWaiters(router, channels.chatWrote);
  const callbackWaiters = new AnswerWaiters(router, channels.callbackAnswered);
  registry.gauge("starpost_payments_waiting", "Payments waiting for the bot's pre-checkout answer", () => waiters.size);
  registry.gauge(
    "starpost_history_reads_waiting",
    "Chat history reads held until the bot's next message",
    () => chatWaiters.size,
  );
  registry.gauge(
    "starpost_presses_waiting",
    "Button presses waiting for the bot's callback answer",
    () => callbackWaiters.size,
  );
  const payments = registry.counter("starpost_payments_total", "Payments by final status (paid, declined, expired)", [
    "status",
  ]);

  const domain: InvoiceDomain = {
    redis: deps.redis,
    deliveryQueue: deps.deliveryQueue,
    waiters,
    chatWaiters,
    callbackWaiters,
    answerTimeoutMs: deps.preCheckoutAnswerMs ?? PRE_CHECKOUT_ANSWER_MS,
    onPayment: (status) => payments.inc({ status }),
  };

  guardInternal(app, deps.internalToken);
  if (deps.replicaWait) registerReplicaWait(app, deps.redis, deps.logger, deps.replicaWait);
  registerOps(app, {
    registry,
    ready: async () => (await deps.redis.ping()) === "PONG",
    timeoutMs: deps.readyTimeoutMs,
  });
  registerMethodRoute(app, INVOICE_METHODS, domain);
  registerPlatformRows(
    app,
    { ...PAYMENT_ROWS, ...CHAT_ROWS, ...VIEW_ROWS },
    { redis: deps.redis, deps: domain, answer },
  );
  // Waiting payments end (as expired), presses and history reads answer, before the server waits for in-flight requests.
  app.addHook("preClose", async () => {
    for (const w of [waiters, chatWaiters, callbackWaiters]) w.close();
    await router.close();
  });
  return app;
}
