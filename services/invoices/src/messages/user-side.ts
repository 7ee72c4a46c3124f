import { createHash, randomBytes } from "node:crypto";
import {
  chatJson,
  keys,
  type CallbackQueryBody,
  type Chat,
  type PlatformUser,
  type UserMessageBody,
  ok,
} from "@starpost/shared";
import { findChat } from "@starpost/runtime";
import { appendUpdates, type AppendOutcome } from "@starpost/update-log";
import type { InvoiceDomain } from "../domain/deps.ts";
import type { Outcome } from "../outcomes.ts";
import { CALLBACK_LIFETIME_MS, type CallbackAnswer } from "./callback-answers.ts";
import { isBotMessage } from "./edit-message.ts";
import { asUser, privateChatOf } from "../domain/people.ts";
import { withFoundEntities } from "../params/find-entities.ts";

/** The sender of a user-side call: `from`, else a private chat's person. */
function senderJson(from: PlatformUser | undefined, chat: Chat): Record<string, unknown> | undefined {
  if (from) return asUser(from);
  if (chat.type !== "private") return undefined;
  return asUser({
    id: Number(chat.id),
    first_name: chat.first_name,
    last_name: chat.last_name,
    username: chat.username,
  });
}

/**
 * A callback query's message as JsonMessage writes it with need_reply (Client.cpp at 01a3679, line
 * 4896): the message it replies to, if that still exists, after `date` (and `edit_date`).
 */
function withReply(message: Record<string, unknown>, replied: string | null): Record<string, unknown> {
  if (!replied) return message;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(message)) {
    out[k] = v;
    if (k === (message.edit_date === undefined ? "date" : "edit_date"))
      out.reply_to_message = JSON.parse(replied) as unknown;
  }
  return out;
}

type ChatUnknown = { outcome: "chat_unknown"; chat_id: string };
type Resolved =
  | { outcome: "resolved"; chat: Chat; user: Record<string, unknown> }
  | ChatUnknown
  | { outcome: "from_id_not_chat" | "from_required" };

/** The chat of a user-side call; an unknown positive id becomes the private chat of `from`. */
async function resolveChat(
  d: InvoiceDomain,
  botId: string,
  chatId: string,
  from: PlatformUser | undefined,
): Promise<Resolved> {
  let chat = await findChat(d.redis, botId, chatId);
  if (!chat) {
    if (Number(chatId) <= 0) return { outcome: "chat_unknown", chat_id: chatId };
    if (from && String(from.id) !== chatId) return { outcome: "from_id_not_chat" };
    chat = privateChatOf(from ?? { id: Number(chatId) });
  }
  const user = senderJson(from, chat);
  if (!user) return { outcome: "from_required" };
  return { outcome: "resolved", chat, user };
}

async function append(
  d: InvoiceDomain,
  botId: string,
  kind: string,
  payload: Record<string, unknown>,
  chat: Chat,
  user: Record<string, unknown>,
  history: boolean,
) {
  const results = await appendUpdates(
    d,
    botId,
    [{ kind, payload, history: history ? { chatId: chat.id } : undefined }],
    {
      chats: [chat],
      users: [user as { id: number }],
    },
  );
  return results?.[0];
}

type BotNotFound = { outcome: "bot_not_found" };

const updateFields = (o: AppendOutcome) =>
  o.outcome === "appended" ? { update_id: o.update_id } : { update_id: null, dropped: o.reason };

/** `POST …/chats/:chatId/messages`: the user sends a text; it joins the history and the bot's log in one step. */
export async function sendUserMessage(
  d: InvoiceDomain,
  botId: string,
  chatId: string,
  body: UserMessageBody,
): Promise<Outcome<Record<string, unknown>, Exclude<Resolved, { outcome: "resolved" }> | BotNotFound>> {
  const resolved = await resolveChat(d, botId, chatId, body.from);
  if (resolved.outcome !== "resolved") return resolved;
  const { chat, user } = resolved;
  // The entities the user's app finds in what the user typed (TDLib's matchers, as for a bot's text).
  const entities = withFoundEntities(body.text, []);
  const payload: Record<string, unknown> = {
    from: user,
    chat: chatJson(chat),
    date: Math.floor(Date.now() / 1000),
    text: body.text,
  };
  if (entities.length > 0) payload.entities = entities;
  const outcome = await append(d, botId, "message", payload, chat, user, true);
  if (!outcome) return { outcome: "bot_not_found" };
  return ok({ ...updateFields(outcome), message: { message_id: outcome.message_id, ...payload } });
}

const newQueryId = () => (randomBytes(8).readBigUInt64BE() >> 1n).toString();
/** Stable per bot and chat, like Telegram's chat_instance. */
const chatInstance = (botId: string, chatId: number) =>
  (createHash("sha256").update(`${botId}:${chatId}`).digest().readBigInt64BE() >> 1n).toString();

function hasButton(message: Record<string, unknown>, data: string): boolean {
  const rows =
    (message.reply_markup as { inline_keyboard?: { callback_data?: unknown }[][] } | undefined)?.inline_keyboard ?? [];
  return rows.some((row) => row.some((b) => b.callback_data === data));
}

/**
 * `POST …/chats/:chatId/callback_queries`: the user presses a button of the bot's message. With
 * `wait_answer_ms`, waits for the bot's answerCallbackQuery (on any replica).
 */
export async function pressButton(
  d: InvoiceDomain,
  botId: string,
  chatId: string,
  body: CallbackQueryBody,
  signal: AbortSignal,
): Promise<
  Outcome<
    Record<string, unknown>,
    | ChatUnknown
    | { outcome: "message_unknown" | "not_bot_message"; message_id: number }
    | { outcome: "button_unknown"; data: string }
    | { outcome: "from_required" }
    | BotNotFound
  >
> {
  const chat = await findChat(d.redis, botId, chatId);
  if (!chat) return { outcome: "chat_unknown", chat_id: chatId };
  const field = `${chat.id}:${body.message_id}`;
  const [json, replyTo] = await d.redis.hmget(keys.messages(botId), field, `${field}:reply`);
  if (!json) return { outcome: "message_unknown", message_id: body.message_id };
  const replied = replyTo ? await d.redis.hget(keys.messages(botId), `${chat.id}:${replyTo}`) : null;
  const message = withReply(JSON.parse(json) as Record<string, unknown>, replied);
  if (!isBotMessage(message, botId)) return { outcome: "not_bot_message", message_id: body.message_id };
  if (!hasButton(message, body.data)) return { outcome: "button_unknown", data: body.data };
  const user = senderJson(body.from, chat);
  if (!user) return { outcome: "from_required" };

  const id = newQueryId();
  await d.redis.set(keys.callbackAnswer(botId, id), "", "PX", CALLBACK_LIFETIME_MS);
  const waitMs = body.wait_answer_ms ?? 0;
  const answered = waitMs > 0 ? (await d.callbackWaiters.wait(botId, id, waitMs, signal)).answered : undefined;
  const payload = { id, from: user, message, chat_instance: chatInstance(botId, chat.id), data: body.data };
  const outcome = await append(d, botId, "callback_query", payload, chat, user, false);
  if (!outcome) return { outcome: "bot_not_found" };
  // A bot that does not take callback queries can never answer: stop waiting now.
  if (outcome.outcome === "dropped") d.callbackWaiters.wakeLocal(botId, id);
  await answered;
  const result: Record<string, unknown> = { ...updateFields(outcome), callback_query_id: id };
  if (waitMs > 0) {
    const stored = await d.redis.get(keys.callbackAnswer(botId, id));
    if (stored) result.answer = JSON.parse(stored) as CallbackAnswer;
  }
  return ok(result);
}
