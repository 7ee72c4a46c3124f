import type { FastifyInstance } from "fastify";
import type { Redis } from "ioredis";
import { Errors, GatewayLimits } from "@starpost/shared";
import { ChannelRouter, Registry, type Logger } from "@starpost/runtime";
import {
  registerOps,
  createHttpServer,
  sendError,
  type UnexpectedErrorHandler,
  type ServiceClient,
} from "@starpost/http";
import { BODY_LIMIT, MAX_HEADER_SIZE, registerBodyParsers } from "./routes/body.ts";
import { registerBotApi } from "./routes/bot-api.ts";
import { registerRequestLog } from "./routes/bot-calls.ts";
import { registerPlatformApi } from "./routes/platform.ts";
import type { BotCache } from "./bot-cache.ts";
import { registerConsole } from "./console.ts";
import { PollHub } from "./polling/poll-hub.ts";
import { registerClientLimits, registerReadShare, serverTimeouts } from "./client-limits.ts";

export interface GatewayDeps {
  redis: Redis;
  /** READY_TIMEOUT_MS: how long /readyz waits for its checks. */
  readyTimeoutMs?: number;
  /** a dedicated connection for the wake-ups of held long polls (one per process). */
  subscriber: Redis;
  services: ServiceClient;
  logger: Logger;
  platformToken: string;
  registry?: Registry;
  /** bot records cached in process (one Redis; closed with the app); without it every call reads Redis. */
  botCache?: BotCache;
  /** what a client may take and hold (GatewayConfig's GATEWAY_* values); the defaults without it. */
  limits?: GatewayLimits;
}

/** Builds the gateway: the Bot API front, long polls, the platform API, health and metrics. Never listens. */
export async function buildApp(deps: GatewayDeps): Promise<FastifyInstance> {
  const limits = deps.limits ?? GatewayLimits.parse({});
  const timeouts = serverTimeouts(limits);
  // Node's own header limit (16 KiB) would refuse a GET whose query string the reference accepts.
  const http = { http: { ...timeouts.http, maxHeaderSize: MAX_HEADER_SIZE } } as object;
  const app = createHttpServer(
    deps.logger,
    {
      bodyLimit: BODY_LIMIT,
      return503OnClosing: false,
      keepAliveTimeout: timeouts.keepAliveTimeout,
      requestTimeout: timeouts.requestTimeout,
      ...http,
    },
    forwardFailed,
  );
  const registry = deps.registry ?? new Registry("gateway");
  registerClientLimits(app, limits, registry);

  registerBodyParsers(app);
  registerReadShare(app, limits.GATEWAY_BOT_READ_BYTES_PER_S, BODY_LIMIT, limits.GATEWAY_REQUEST_TIMEOUT_MS / 2);
  registerOps(app, {
    registry,
    timeoutMs: deps.readyTimeoutMs,
    // At once, not one after the other: /readyz answers within READY_TIMEOUT_MS.
    ready: async () => {
      const answers = await Promise.all([
        deps.redis.ping().then((pong) => pong === "PONG"),
        deps.services.ping("updates"),
        deps.services.ping("invoices"),
      ]);
      return answers.every(Boolean);
    },
  });
  registerPlatformApi(app, { services: deps.services, platformToken: deps.platformToken });
  registerConsole(app);
  const stepLog = registerRequestLog(app, deps.redis, deps.logger, registry);
  const router = new ChannelRouter(deps.subscriber);
  const polls = new PollHub({ redis: deps.redis, router, logger: deps.logger, registry });
  polls.start();
  // Before the server stops waiting for requests: held polls are answered with an empty result at
  // once rather than holding shutdown for up to 50 s (nothing is confirmed until the next offset).
  app.addHook("preClose", async () => {
    await polls.close();
    await router.close();
  });
  registerBotApi(app, {
    redis: deps.redis,
    services: deps.services,
    botCache: deps.botCache,
    polling: { redis: deps.redis, hub: polls },
    stepLog,
    maxParams: limits.GATEWAY_MAX_PARAMS,
    botMaxActive: limits.GATEWAY_BOT_MAX_ACTIVE_REQUESTS,
  });
  if (deps.botCache) app.addHook("onClose", () => deps.botCache!.close());

  return app;
}

/** What can go wrong forwarding a call, beyond the common envelope handler (createHttpServer). */
const forwardFailed: UnexpectedErrorHandler = (err, req, reply) => {
  // The caller left a held platform call first (a history read, a payment waiting for the bot):
  // the aborted forward is expected, not a failure, and there is nobody left to answer.
  if (err.name === "AbortError" && req.raw.socket?.destroyed) {
    req.log.debug("caller went away before the answer");
    return reply.hijack();
  }
  req.log.error({ err: { message: err.message, stack: err.stack } }, "request failed");
  return sendError(reply, isConnectError(err) ? Errors.serviceUnavailable() : Errors.internal());
};

function isConnectError(err: Error & { code?: string }): boolean {
  return err.code === "ECONNREFUSED" || err.code === "UND_ERR_SOCKET" || err.code === "ECONNRESET";
}
