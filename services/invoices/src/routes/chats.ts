import type { FastifyInstance } from "fastify";
import {
  abortOnClose,
  CallbackQueryBody,
  Errors,
  findChat,
  getBot,
  HistoryQuery,
  parseWith,
  sendError,
  sendOutcome,
  UserMessageBody,
  isBotId,
  isChatId,
} from "@starpost/shared";
import type { InvoiceDomain } from "../domain/deps.ts";
import { chatHistory } from "../messages/history.ts";
import { pressButton, sendUserMessage } from "../messages/user-side.ts";
import { answer } from "../outcomes.ts";

type ChatParams = { Params: { botId: string; chatId: string } };

/**
 * The user's side of a chat (`/platform/v1/bots/:botId/chats/:chatId/…`, forwarded by the
 * gateway after its bearer check): send a text, press a button, read the history.
 */
export function registerChatRoutes(app: FastifyInstance, d: InvoiceDomain) {
  const base = "/internal/platform/bots/:botId/chats/:chatId";
  /** The bot must exist (read, not cached: a deleted bot is gone at once); the chat id must be one. */
  const check = async (p: ChatParams["Params"]) => {
    if (!isBotId(p.botId) || !(await getBot(d.redis, p.botId))) return Errors.botNotFound();
    return isChatId(p.chatId) ? undefined : Errors.platformChatUnknown(p.chatId);
  };

  app.post<ChatParams>(`${base}/messages`, async (req, reply) => {
    const bad = await check(req.params);
    if (bad) return sendError(reply, bad);
    const body = parseWith(UserMessageBody, req.body ?? {});
    if (!body.ok) return sendError(reply, body.error);
    return sendOutcome(reply, answer(await sendUserMessage(d, req.params.botId, req.params.chatId, body.params)));
  });

  app.post<ChatParams>(`${base}/callback_queries`, async (req, reply) => {
    const bad = await check(req.params);
    if (bad) return sendError(reply, bad);
    const body = parseWith(CallbackQueryBody, req.body ?? {});
    if (!body.ok) return sendError(reply, body.error);
    return sendOutcome(
      reply,
      answer(await pressButton(d, req.params.botId, req.params.chatId, body.params, abortOnClose(reply))),
    );
  });

  app.get<ChatParams>(`${base}/messages`, async (req, reply) => {
    const bad = await check(req.params);
    if (bad) return sendError(reply, bad);
    const query = parseWith(HistoryQuery, req.query ?? {});
    if (!query.ok) return sendError(reply, query.error);
    if (!(await findChat(d.redis, req.params.botId, req.params.chatId)))
      return sendError(reply, Errors.platformChatUnknown(req.params.chatId));
    return sendOutcome(
      reply,
      answer(await chatHistory(d, req.params.botId, req.params.chatId, query.params, abortOnClose(reply))),
    );
  });
}
