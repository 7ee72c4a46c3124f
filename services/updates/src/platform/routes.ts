import type { FastifyInstance } from "fastify";
import type { Redis } from "ioredis";
import {
  ChatBody,
  CreateBotBody,
  Errors,
  keys,
  parseWith,
  saveChat,
  sendError,
  sendOutcome,
  success,
  isBotId,
  isChatId,
} from "@starpost/shared";
import { registerBotAdminRoutes } from "./bot-admin.ts";
import { registerViewRoutes } from "./views.ts";
import { createBot, rotateToken } from "./bots.ts";
import { ingestUpdates, type IngestDeps } from "./ingest.ts";
import { answer } from "../outcomes.ts";

type BotParams = { Params: { botId: string; chatId?: string } };

/** The platform routes this service owns, behind the gateway's bearer check (`/internal/platform/*`). */
export function registerPlatformRoutes(app: FastifyInstance, deps: IngestDeps & { redis: Redis }) {
  const { redis } = deps;

  app.post("/internal/platform/bots", async (req, reply) => {
    const body = parseWith(CreateBotBody, req.body ?? {});
    if (!body.ok) return sendError(reply, body.error);
    return sendOutcome(reply, answer(await createBot(redis, body.params)));
  });

  app.post<BotParams>("/internal/platform/bots/:botId/token", async (req, reply) => {
    if (!isBotId(req.params.botId)) return sendError(reply, Errors.botNotFound());
    return sendOutcome(reply, answer(await rotateToken(redis, req.params.botId)));
  });

  app.put<BotParams>("/internal/platform/bots/:botId/chats/:chatId", async (req, reply) => {
    const { botId, chatId } = req.params;
    if (!isBotId(botId) || !(await redis.exists(keys.bot(botId)))) return sendError(reply, Errors.botNotFound());
    if (!isChatId(chatId)) return sendError(reply, Errors.chatIdNotInteger());
    const body = parseWith(ChatBody, req.body ?? {});
    if (!body.ok) return sendError(reply, body.error);
    const chat = { id: Number(chatId), ...body.params };
    if ((chat.type === "private") !== Number(chatId) > 0) {
      return sendOutcome(reply, answer({ outcome: "chat_id_sign" }));
    }
    await saveChat(redis, botId, chat);
    return sendOutcome(reply, success(chat));
  });

  registerBotAdminRoutes(app, redis);
  registerViewRoutes(app, redis);

  app.post<BotParams>("/internal/platform/bots/:botId/updates", async (req, reply) => {
    if (!isBotId(req.params.botId)) return sendError(reply, Errors.botNotFound());
    return sendOutcome(reply, answer(await ingestUpdates(deps, req.params.botId, req.body)));
  });
}
