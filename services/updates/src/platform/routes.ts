import type { FastifyInstance } from "fastify";
import type { Redis } from "ioredis";
import { Errors, isChatId, ok, type ChatBody, type CreateBotBody, type PushQuery } from "@starpost/shared";
import { saveChat, type ActivityWaits } from "@starpost/runtime";
import { registerPlatformRows, type PlatformTable } from "@starpost/http";
import { ACTIVITY_ROWS } from "./activity.ts";
import { ADMIN_ROWS } from "./bot-admin.ts";
import { VIEW_ROWS } from "./views.ts";
import { createBot, rotateToken } from "./bots.ts";
import { ingestUpdates, type IngestDeps } from "./ingest.ts";
import { answer } from "../outcomes.ts";

export type PlatformDeps = IngestDeps & { redis: Redis; activityWaits: ActivityWaits };

/** Bots, chats and pushed updates. */
const BOT_ROWS: PlatformTable<PlatformDeps> = {
  "POST /bots": {
    bot: "step",
    handler: async ({ redis }, { body }) => createBot(redis, body as CreateBotBody),
  },
  "POST /bots/:botId/token": { bot: "step", handler: async ({ redis }, { botId }) => rotateToken(redis, botId) },
  "PUT /bots/:botId/chats/:chatId": {
    bot: "edge",
    params: ({ chatId }) => (isChatId(chatId) ? undefined : Errors.chatIdNotInteger()),
    handler: async ({ redis }, { botId, params, body }) => {
      const chat = { id: Number(params.chatId), ...(body as ChatBody) };
      if ((chat.type === "private") !== chat.id > 0) return { outcome: "chat_id_sign" };
      await saveChat(redis, botId, chat);
      return ok(chat);
    },
  },
  "POST /bots/:botId/updates": {
    bot: "step",
    rawBody: true,
    handler: async (deps, { botId, body, query }) =>
      ingestUpdates(deps, botId, body, (query as PushQuery).idempotency_key),
  },
};

/** The platform routes this service owns, behind the gateway's bearer check (`/internal/platform/*`). */
export function registerPlatformRoutes(app: FastifyInstance, deps: PlatformDeps) {
  registerPlatformRows(
    app,
    { ...BOT_ROWS, ...ADMIN_ROWS, ...VIEW_ROWS, ...ACTIVITY_ROWS },
    {
      redis: deps.redis,
      deps,
      answer,
    },
  );
}
