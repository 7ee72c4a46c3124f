import { setTimeout as sleep } from "node:timers/promises";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { Redis } from "ioredis";
import { Errors, findMethod, METHODS, parseWith, type MethodSpec } from "@starpost/shared";
import { checkToken, type BotRecord } from "@starpost/runtime";
import { abortOnClose, CallSignal, sendError, sendOutcome, type MethodRow, type ServiceClient } from "@starpost/http";
import { GATEWAY_METHODS, type HeldCall } from "../methods.ts";
import type { PollingDeps } from "../polling/handlers.ts";
import { readBotParams } from "./body.ts";
import { ActiveCalls, FLOOD_ANSWER_DELAY_MS, FLOOD_RETRY_AFTER_S } from "./active-calls.ts";
import { applyFault, noteBotCall } from "./bot-calls.ts";
import type { StepLog } from "../polling/poll-hub.ts";
import type { BotCache } from "../bot-cache.ts";

export interface BotApiDeps {
  redis: Redis;
  services: ServiceClient;
  botCache?: BotCache;
  /** what the gateway's own methods need (getUpdates: the log and the poll hub). */
  polling: PollingDeps;
  /** a call's request log entry for the step that answers it (registerRequestLog). */
  stepLog: (req: FastifyRequest) => StepLog | undefined;
  /** GATEWAY_MAX_PARAMS: parameters one call may carry. */
  maxParams: number;
  /** GATEWAY_BOT_MAX_ACTIVE_REQUESTS: calls one bot may have in progress, long polls aside. */
  botMaxActive: number;
}

const BOT_PATH = /^\/bot([^/]*)\/([^/]*)$/;

/** `/bot<token>/<method>`: token check, method lookup, then the owning service answers. */
export function registerBotApi(app: FastifyInstance, deps: BotApiDeps) {
  const { redis, services, botCache, polling, stepLog, maxParams } = deps;
  const active = new ActiveCalls(deps.botMaxActive);
  const check = (token: string) => (botCache ? botCache.check(redis, token) : checkToken(redis, token));

  const handler = async (req: FastifyRequest, reply: FastifyReply) => {
    const path = req.url.split("?", 1)[0]!;
    const match = BOT_PATH.exec(path);
    if (!match) return sendError(reply, Errors.notFound());
    let token: string;
    try {
      token = decodeURIComponent(match[1]!);
    } catch {
      return sendError(reply, Errors.invalidToken());
    }
    const auth = await check(token);
    if (auth.outcome === "malformed") return sendError(reply, Errors.invalidToken());
    if (auth.outcome === "unknown") return sendError(reply, Errors.unauthorized());
    const method = findMethod(match[2]!);
    if (!method) {
      // Logged too: a test sees which unsupported method its bot tried.
      noteBotCall(req, { botId: auth.bot.id, method: match[2]!, params: {} });
      return sendError(reply, Errors.methodNotFound());
    }

    const spec: MethodSpec = METHODS[method];
    if (!spec.longPoll && !active.enter(auth.bot.id, req.raw, reply.raw)) {
      noteBotCall(req, { botId: auth.bot.id, method, params: {} });
      await sleep(FLOOD_ANSWER_DELAY_MS);
      return sendError(reply, Errors.tooManyRequests(FLOOD_RETRY_AFTER_S));
    }

    const params = await readBotParams(req, maxParams);
    noteBotCall(req, { botId: auth.bot.id, method, params });
    if (auth.hasFaults && (await applyFault(redis, req, reply, abortOnClose(reply)))) return reply;
    if (spec.service === "gateway") {
      const row = GATEWAY_METHODS[method as keyof typeof GATEWAY_METHODS] as MethodRow<PollingDeps, unknown, HeldCall>;
      const parsed = parseWith(row.params, params);
      if (parsed.outcome === "error") return sendError(reply, parsed.error);
      // The abort signal is made only for a handler that asks for it (a long poll).
      const ctx = new GatewayCall(reply, auth.bot, parsed.result, () => stepLog(req));
      return sendOutcome(reply, await row.handler(polling, ctx));
    }
    // Calls to a service are short and run to their end: no abort listener per call.
    const answer = await services.call(spec.service, method, auth.bot, params);
    return reply.code(answer.status).headers(answer.headers).type("application/json").send(answer.body);
  };
  app.route({ method: ["GET", "POST"], url: "/bot*", handler });
}

/** A call the gateway answers itself: the bot, its checked params, the signal and the poll's step log. */
class GatewayCall extends CallSignal implements HeldCall {
  readonly botId: string;
  constructor(
    reply: FastifyReply,
    readonly bot: BotRecord,
    readonly params: unknown,
    readonly stepLog: () => StepLog | undefined,
  ) {
    super(reply);
    this.botId = bot.id;
  }
}
