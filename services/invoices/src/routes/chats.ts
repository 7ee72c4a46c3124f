import { Errors, isChatId, type CallbackQueryBody, type HistoryQuery, type UserMessageBody } from "@starpost/shared";
import { findChat } from "@starpost/runtime";
import { type PlatformTable } from "@starpost/http";
import type { InvoiceDomain } from "../domain/deps.ts";
import { chatHistory } from "../messages/history.ts";
import { pressButton, sendUserMessage } from "../messages/user-side.ts";

/** The chat id must be one (the bot's existence is read at the edge, not cached: a deleted bot is gone at once). */
const chatIdRule = ({ chatId }: Record<string, string>) =>
  isChatId(chatId) ? undefined : Errors.platformChatUnknown(chatId!);

/**
 * The user's side of a chat (`/platform/v1/bots/:botId/chats/:chatId/…`, forwarded by the
 * gateway after its bearer check): send a text, press a button, read the history.
 */
export const CHAT_ROWS: PlatformTable<InvoiceDomain> = {
  "POST /bots/:botId/chats/:chatId/messages": {
    bot: "edge",
    params: chatIdRule,
    handler: async (d, { botId, params, body }) => sendUserMessage(d, botId, params.chatId!, body as UserMessageBody),
  },
  "POST /bots/:botId/chats/:chatId/callback_queries": {
    bot: "edge",
    params: chatIdRule,
    handler: async (d, call) =>
      pressButton(d, call.botId, call.params.chatId!, call.body as CallbackQueryBody, call.signal),
  },
  "GET /bots/:botId/chats/:chatId/messages": {
    bot: "edge",
    params: chatIdRule,
    handler: async (d, call) => {
      if (!(await findChat(d.redis, call.botId, call.params.chatId!)))
        return { outcome: "chat_unknown", chat_id: call.params.chatId! };
      return chatHistory(d, call.botId, call.params.chatId!, call.query as HistoryQuery, call.signal);
    },
  },
};
