import type { Redis } from "ioredis";
import { chatJson, keys, type Chat } from "@starpost/shared";

/** Stores a chat the bot met (and its username, for `@username` chat ids). */
export async function saveChat(redis: Redis, botId: string, chat: Chat): Promise<void> {
  const json = JSON.stringify(chatJson(chat));
  const multi = redis.multi().hset(keys.chats(botId), String(chat.id), json);
  if (chat.username) multi.hset(keys.chatUsernames(botId), chat.username.toLowerCase(), String(chat.id));
  await multi.exec();
}

/** Finds a chat by id or by `@username`. */
export async function findChat(redis: Redis, botId: string, chatId: string | number): Promise<Chat | undefined> {
  let id = String(chatId);
  if (id.startsWith("@")) {
    const found = await redis.hget(keys.chatUsernames(botId), id.slice(1).toLowerCase());
    if (!found) return undefined;
    id = found;
  }
  const json = await redis.hget(keys.chats(botId), id);
  return json ? (JSON.parse(json) as Chat) : undefined;
}
