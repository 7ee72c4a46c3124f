import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { Redis } from "ioredis";
import {
  abortOnClose,
  botUser,
  checkToken,
  Errors,
  findMethod,
  METHODS,
  parseParams,
  sendError,
  sendOutcome,
  success,
  type BotRecord,
  type MethodName,
  type MethodSpec,
  type MethodOutcome,
  type ServiceClient,
} from "@starpost/shared";
import { readBotParams } from "./body.ts";
import { applyFault, noteBotCall } from "./bot-calls.ts";
import type { BotCache } from "../bot-cache.ts";

export interface BotApiDeps {
  redis: Redis;
  services: ServiceClient;
  botCache?: BotCache;
}

const BOT_PATH = /^\/bot([^/]*)\/([^/]*)$/;

/** Methods the gateway answers itself (the table's `gateway` rows). */
const own: Partial<Record<MethodName, (bot: BotRecord) => MethodOutcome>> = {
  getMe: (bot) => success(botUser(bot)),
  // starpost is the bot's only server: logging out or closing has nothing to release.
  logOut: () => success(true),
  close: () => success(true),
};

/** `/bot<token>/<method>`: token check, method lookup, then the owning service answers. */
export function registerBotApi(app: FastifyInstance, { redis, services, botCache }: BotApiDeps) {
  // Shutting down, the gateway answers held long polls at once rather than waiting up to 50 s:
  // an empty result loses nothing, since nothing is confirmed until the bot's next offset.
  const closing = new AbortController();
  app.addHook("preClose", async () => closing.abort());

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
      const parsed = parseParams(method, params);
      if (!parsed.ok) return sendError(reply, parsed.error);
      return sendOutcome(reply, own[method]!(auth.bot));
    }
    // A poll with timeout 0 (or none) answers at once: it is not held, so it needs no abort signal.
    const longPoll = (spec as MethodSpec).longPoll === true && Number(params.timeout ?? 0) > 0;
    // Only a long poll is given up when its caller leaves: any other call is short and runs to its
    // end (an abort listener per call is measurable on the hot path).
    const signal = longPoll ? AbortSignal.any([abortOnClose(reply), closing.signal]) : undefined;
    let answer;
    try {
      answer = await services.call(spec.service, method, auth.bot, params, signal);
    } catch (err) {
      if (longPoll && closing.signal.aborted) return sendOutcome(reply, success([]));
      throw err;
    }
    return reply.code(answer.status).headers(answer.headers).type("application/json").send(answer.body);
  };
  app.route({ method: ["GET", "POST"], url: "/bot*", handler });
}
