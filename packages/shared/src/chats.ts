import type { Redis } from "ioredis";
import { keys } from "./redis-keys.ts";

/** A Chat as stored per bot: the fields the Bot API shows in Message.chat. */
export interface Chat {
  id: number;
  type: "private" | "group" | "supergroup" | "channel";
  title?: string;
  username?: string;
  first_name?: string;
  last_name?: string;
}

/** Chat keys in the order the official server prints them. */
export function chatJson(c: Chat): Chat {
  const out: Record<string, unknown> = { id: c.id };
  if (c.type === "private") {
    if (c.first_name !== undefined) out.first_name = c.first_name;
    if (c.last_name !== undefined) out.last_name = c.last_name;
    if (c.username !== undefined) out.username = c.username;
  } else {
    if (c.title !== undefined) out.title = c.title;
    if (c.username !== undefined) out.username = c.username;
  }
  out.type = c.type;
  return out as unknown as Chat;
}

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
