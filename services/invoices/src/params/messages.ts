import { z } from "zod";
import { parseEntities, type MessageEntity, type ParseMode } from "./entities.ts";
import { chatIdParam, checkInlineKeyboard, checkReplyParameters, isError, rawJson, sendingShape } from "./invoices.ts";
import { Errors, type BotApiError, INVALID_JSON, looseInt, optionalString, fail } from "@starpost/shared";

/**
 * Parameters of the message methods (owned by services/invoices, which also owns the chats'
 * message ids): sendMessage, editMessageText, editMessageReplyMarkup, deleteMessage. Texts of
 * errors follow the official server; entity parsing follows td (./entities.ts).
 */

const MAX_TEXT = 4096;
const PARSE_MODES: Record<string, ParseMode> = { html: "HTML", markdownv2: "MarkdownV2", markdown: "Markdown" };
const ENTITY_FIELDS = ["type", "offset", "length", "url", "user", "language", "custom_emoji_id"] as const;

function checkEntities(raw: unknown): MessageEntity[] | BotApiError {
  if (raw === INVALID_JSON || !Array.isArray(raw)) return Errors.entitiesJson();
  const out: MessageEntity[] = [];
  for (const e of raw) {
    if (typeof e !== "object" || e === null) return Errors.entitiesJson();
    const r = e as Record<string, unknown>;
    if (typeof r.type !== "string" || !Number.isSafeInteger(r.offset) || !Number.isSafeInteger(r.length))
      return Errors.entitiesJson();
    const entity: Record<string, unknown> = {};
    for (const k of ENTITY_FIELDS) if (r[k] !== undefined) entity[k] = r[k];
    out.push(entity as unknown as MessageEntity);
  }
  return out;
}

/** The message text after parse_mode or explicit entities: 1..4096 characters. */
function checkText(text: string | undefined, parseMode: string | undefined, rawEntities: unknown) {
  if (text === undefined) return Errors.messageTextEmpty();
  let parsed: { text: string; entities: MessageEntity[] } = { text, entities: [] };
  if (rawEntities !== undefined) {
    const entities = checkEntities(rawEntities);
    if (isError(entities)) return entities;
    parsed.entities = entities;
  } else if (parseMode !== undefined) {
    const mode = PARSE_MODES[parseMode.toLowerCase()];
    if (!mode) return Errors.parseModeUnsupported();
    const result = parseEntities(text, mode);
    if ("error" in result) return result.error;
    parsed = result;
  }
  if (parsed.text.trim() === "") return Errors.messageTextEmpty();
  if ([...parsed.text].length > MAX_TEXT) return Errors.messageTooLong();
  return parsed;
}

const textShape = {
  chat_id: chatIdParam(),
  text: z.preprocess(
    (v) => (v === "" || v === null ? undefined : typeof v === "number" ? String(v) : v),
    z.string().optional().catch(undefined),
  ),
  parse_mode: optionalString(),
  entities: rawJson(),
  reply_markup: rawJson(),
};

export const SendMessageParams = z
  .object({
    ...sendingShape,
    ...textShape,
    // Accepted and without effect in starpost.
    link_preview_options: rawJson(),
    business_connection_id: optionalString(),
  })
  .transform((p, ctx) => {
    const markup = checkInlineKeyboard(p.reply_markup);
    if (isError(markup)) return fail(ctx, markup);
    const text = checkText(p.text, p.parse_mode, p.entities);
    if (isError(text)) return fail(ctx, text);
    const reply = checkReplyParameters(p.reply_parameters);
    if (isError(reply)) return fail(ctx, reply);
    return {
      chat_id: p.chat_id ?? "",
      text: text.text,
      entities: text.entities,
      reply_markup: markup,
      reply_parameters: reply,
      protect_content: p.protect_content === true,
      disable_notification: p.disable_notification === true,
    };
  });
export type SendMessageParams = z.infer<typeof SendMessageParams>;

const target = {
  chat_id: chatIdParam(),
  message_id: looseInt(),
  inline_message_id: optionalString(),
};

/** The message an edit or delete names: a chat and a message id (inline messages are not simulated). */
function checkTarget(p: { chat_id?: string; message_id?: number; inline_message_id?: string }) {
  if (p.inline_message_id !== undefined && p.chat_id === undefined) return Errors.inlineMessagesUnsupported();
  if (p.chat_id === undefined || p.chat_id === "") return Errors.chatIdEmpty();
  if (p.message_id === undefined || p.message_id <= 0) return Errors.messageIdInvalid();
  return { chat_id: p.chat_id, message_id: p.message_id };
}

export const EditMessageTextParams = z.object({ ...target, ...textShape }).transform((p, ctx) => {
  const where = checkTarget(p);
  if (isError(where)) return fail(ctx, where);
  const markup = checkInlineKeyboard(p.reply_markup);
  if (isError(markup)) return fail(ctx, markup);
  const text = checkText(p.text, p.parse_mode, p.entities);
  if (isError(text)) return fail(ctx, text);
  return { ...where, text: text.text, entities: text.entities, reply_markup: markup };
});
export type EditMessageTextParams = z.infer<typeof EditMessageTextParams>;

export const EditMessageReplyMarkupParams = z.object({ ...target, reply_markup: rawJson() }).transform((p, ctx) => {
  const where = checkTarget(p);
  if (isError(where)) return fail(ctx, where);
  const markup = checkInlineKeyboard(p.reply_markup);
  if (isError(markup)) return fail(ctx, markup);
  return { ...where, reply_markup: markup };
});
export type EditMessageReplyMarkupParams = z.infer<typeof EditMessageReplyMarkupParams>;

export const DeleteMessageParams = z.object({ chat_id: chatIdParam(), message_id: looseInt() }).transform((p, ctx) => {
  const where = checkTarget(p);
  if (isError(where)) return fail(ctx, where);
  return where;
});
export type DeleteMessageParams = z.infer<typeof DeleteMessageParams>;
