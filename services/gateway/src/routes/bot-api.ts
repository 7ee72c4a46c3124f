import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { Redis } from "ioredis";
import { Errors, findMethod, METHODS, parseWith } from "@starpost/shared";
import { checkToken } from "@starpost/runtime";
import { abortOnClose, sendError, sendOutcome, type MethodRow, type ServiceClient } from "@starpost/http";
import { GATEWAY_METHODS, type HeldCall } from "../methods.ts";
import type { PollingDeps } from "../polling/handlers.ts";
import { readBotParams } from "./body.ts";
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
}

const BOT_PATH = /^\/bot([^/]*)\/([^/]*)$/;

/** `/bot<token>/<method>`: token check, method lookup, then the owning service answers. */
export function registerBotApi(app: FastifyInstance, { redis, services, botCache, polling, stepLog }: BotApiDeps) {
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
    const auth = await (botCache ? botCache.check(redis, token) : checkToken(redis, token));
    if (auth.outcome === "malformed") return sendError(reply, Errors.invalidToken());
    if (auth.outcome === "unknown") return sendError(reply, Errors.unauthorized());
    const method = findMethod(match[2]!);
    if (!method) {
      // Logged too: a test sees which unsupported method its bot tried.
      noteBotCall(req, { botId: auth.bot.id, method: match[2]!, params: {} });
      return sendError(reply, Errors.methodNotFound());
    }

    const params = await readBotParams(req);
    noteBotCall(req, { botId: auth.bot.id, method, params });
    if (auth.hasFaults && (await applyFault(redis, req, reply, abortOnClose(reply)))) return reply;
    const spec = METHODS[method];
    if (spec.service === "gateway") {
      const row = GATEWAY_METHODS[method as keyof typeof GATEWAY_METHODS] as MethodRow<PollingDeps, unknown, HeldCall>;
      const parsed = parseWith(row.params, params);
      if (parsed.outcome === "error") return sendError(reply, parsed.error);
      // The abort signal is made only for a handler that asks for it (a long poll).
      let signal: AbortSignal | undefined;
      const ctx = {
        botId: auth.bot.id,
        bot: auth.bot,
        params: parsed.result,
        get signal() {
          return (signal ??= abortOnClose(reply));
        },
        stepLog: () => stepLog(req),
      };
      return sendOutcome(reply, await row.handler(polling, ctx));
    }
    // Calls to a service are short and run to their end: no abort listener per call.
    const answer = await services.call(spec.service, method, auth.bot, params);
    return reply.code(answer.status).headers(answer.headers).type("application/json").send(answer.body);
  };
  app.route({ method: ["GET", "POST"], url: "/bot*", handler });
}
