import { z } from "zod";
import { entityJson, parseEntities, type MessageEntity, type ParseMode } from "./entities.ts";
import { isError, readSending, sendingShape } from "./invoices.ts";
import { readReplyMarkup } from "./markup.ts";
import { withFoundEntities } from "./find-entities.ts";
import { checkLinkPreviewOptions, checkBusinessConnection } from "./options.ts";
import {
  decodeJson,
  Errors,
  fail,
  intField,
  isJsonObject,
  isFieldError,
  longField,
  boolParam,
  chatIdParam,
  looseInt,
  optionalString,
  reader,
  stringField,
  type BotApiError,
  type JsonValue,
} from "@starpost/shared";

/**
 * Parameters of the message methods (owned by services/invoices, which also owns the chats'
 * message ids): sendMessage, editMessageText, editMessageReplyMarkup, deleteMessage. Texts of
 * errors follow the official server; entity parsing follows td (./entities.ts).
 */

const MAX_TEXT = 4096;
/** get_formatted_text refuses a text over 32 KiB before parsing it (Client.cpp at 01a3679, line 11309). */
const MAX_TEXT_BYTES = 1 << 15;
const PARSE_MODES: Record<string, ParseMode> = { html: "HTML", markdownv2: "MarkdownV2", markdown: "Markdown" };

/** Entity types the reference drops from `entities` (TDLib finds them itself): get_text_entity_type, line 11262. */
const DROPPED_TYPES = new Set([
  "mention",
  "hashtag",
  "cashtag",
  "bot_command",
  "url",
  "email",
  "phone_number",
  "bank_card_number",
]);
const PLAIN_TYPES = new Set([
  "bold",
  "italic",
  "underline",
  "strikethrough",
  "spoiler",
  "code",
  "blockquote",
  "expandable_blockquote",
]);

/** One entity as get_text_entity reads it (line 11290): undefined for a dropped type, else the entity or td's text. */
function readEntity(v: JsonValue): MessageEntity | undefined | string {
  if (!isJsonObject(v)) return "expected an Object";
  const offset = intField(v, "offset");
  if (isFieldError(offset)) return offset.message;
  const length = intField(v, "length");
  if (isFieldError(length)) return length.message;
  const type = stringField(v, "type");
  if (isFieldError(type)) return type.message;
  if (type === "") return "Type is not specified";
  const e: MessageEntity = { offset, length, type };
  if (PLAIN_TYPES.has(type)) return e;
  if (DROPPED_TYPES.has(type)) return undefined;
  if (type === "pre") {
    const language = stringField(v, "language", "");
    if (isFieldError(language)) return language.message;
    return language === "" ? e : { ...e, language };
  }
  if (type === "text_link") {
    const url = stringField(v, "url");
    return isFieldError(url) ? url.message : { ...e, url };
  }
  if (type === "text_mention") {
    const user = v.user;
    if (!isJsonObject(user)) return 'Field "user" must be of type Object';
    const id = longField(user, "id");
    // JsonUser of a user the server does not know: id, is_bot, an empty first_name.
    return isFieldError(id) ? id.message : { ...e, user: { id: Number(id), is_bot: false, first_name: "" } };
  }
  if (type === "custom_emoji") {
    const id = longField(v, "custom_emoji_id");
    return isFieldError(id) ? id.message : { ...e, custom_emoji_id: id.toString() };
  }
  return "Unsupported type specified";
}

/** TDLib's bound on an entity's offset and length. */
const MAX_ENTITY_BOUND = 1_000_000;

/** `entities` (get_input_entities, line 11169): JSON that does not parse, or is not an array, is no entities. */
function readEntities(raw: string | undefined): MessageEntity[] | BotApiError {
  const value = raw === undefined || raw === "" ? undefined : decodeJson(raw);
  if (!Array.isArray(value)) return [];
  const out: MessageEntity[] = [];
  for (const v of value) {
    const e = readEntity(v);
    if (typeof e === "string") return Errors.entityInvalid(e);
    if (e) out.push(e);
  }
  // Then TDLib's own checks (fix_formatted_text, MessageEntity.cpp line 4493); empty ones go.
  for (const e of out) {
    if (e.offset < 0 || e.offset > MAX_ENTITY_BOUND) return Errors.entityOffsetInvalid(e.offset);
    if (e.length < 0 || e.length > MAX_ENTITY_BOUND) return Errors.entityLengthInvalid(e.length);
  }
  return out.filter((e) => e.length > 0);
}

/**
 * The message text as get_input_message_text reads it (line 11391): empty is an error; over 32 KiB
 * too; a parse_mode other than "" and "none" wins over `entities`; then at most 4096 characters
 * of something that is not all white space.
 */
function checkText(text: string | undefined, parseMode: string | undefined, rawEntities: string | undefined) {
  if (text === undefined) return Errors.messageTextEmpty();
  if (Buffer.byteLength(text) > MAX_TEXT_BYTES) return Errors.textTooLong();
  const mode = (parseMode ?? "").toLowerCase();
  let parsed: { text: string; entities: MessageEntity[] };
  if (mode !== "" && mode !== "none") {
    const known = PARSE_MODES[mode];
    if (!known) return Errors.parseModeUnsupported();
    const result = parseEntities(text, known);
    if ("error" in result) return result.error;
    parsed = result;
  } else {
    const entities = readEntities(rawEntities);
    if (isError(entities)) return entities;
    parsed = { text, entities };
  }
  const trimmed = trimText(parsed.text, parsed.entities);
  if (trimmed === undefined) return Errors.textMustBeNonEmpty();
  if ([...trimmed.text].length > MAX_TEXT) return Errors.messageTooLong();
  return { text: trimmed.text, entities: withFoundEntities(trimmed.text, trimmed.entities).map(entityJson) };
}

const isBlank = (c: string | undefined) => c === " " || c === "\n";

/**
 * TDLib's trim of a message text (fix_formatted_text, MessageEntity.cpp): spaces and newlines
 * at the end go, entities cut to what is left; spaces and newlines at the start go up to the
 * first entity, entities moved back. Undefined when nothing else is left ("text must be non-empty").
 */
function trimText(text: string, entities: MessageEntity[]): { text: string; entities: MessageEntity[] } | undefined {
  let end = text.length;
  while (end > 0 && isBlank(text[end - 1])) end--;
  if (end === 0) return undefined;
  const kept = entities
    .filter((e) => e.offset < end)
    .map((e) => (e.offset + e.length > end ? { ...e, length: end - e.offset } : e));
  const firstEntity = kept.length === 0 ? end : Math.min(...kept.map((e) => e.offset));
  let start = 0;
  while (start < firstEntity && isBlank(text[start])) start++;
  return {
    text: text.slice(start, end),
    entities: start === 0 ? kept : kept.map((e) => ({ ...e, offset: e.offset - start })),
  };
}

const textShape = {
  chat_id: chatIdParam(),
  text: reader(
    "textParam",
    z.preprocess(
      (v) => (v === "" || v === null ? undefined : typeof v === "number" ? String(v) : v),
      z.string().optional().catch(undefined),
    ),
  ),
  parse_mode: optionalString(),
  entities: optionalString(),
  reply_markup: optionalString(),
  // Read for their errors, without effect in starpost.
  link_preview_options: optionalString(),
  disable_web_page_preview: boolParam(),
};

/** get_input_message_text (line 11391): the link preview options first, then the text. */
function readMessageText(p: { link_preview_options?: string; text?: string; parse_mode?: string; entities?: string }) {
  return checkLinkPreviewOptions(p.link_preview_options) ?? checkText(p.text, p.parse_mode, p.entities);
}

export const SendMessageParams = z.object({ ...sendingShape, ...textShape }).transform((p, ctx) => {
  // process_send_message_query's order: the text, then do_send_message's reply, suggested
  // post, markup and business connection.
  const text = readMessageText(p);
  if (isError(text)) return fail(ctx, text);
  const sending = readSending(p);
  if (isError(sending)) return fail(ctx, sending);
  return {
    chat_id: p.chat_id?.id ?? "",
    text: text.text,
    entities: text.entities,
    reply_markup: sending.markup,
    reply_parameters: sending.reply,
    protect_content: p.protect_content === true,
    disable_notification: p.disable_notification === true,
  };
});
export type SendMessageParams = z.infer<typeof SendMessageParams>;

const target = {
  chat_id: chatIdParam(),
  message_id: looseInt(),
  inline_message_id: optionalString(),
  business_connection_id: optionalString(),
};

/**
 * The message an edit names (process_edit_message_*_query, lines 13503 and 13748): no chat and no
 * message id name an inline message (not simulated: `inline_message_id` unsupported, none at all
 * "message identifier is not specified"); otherwise the chat must be given. A message id of 0 is
 * looked up like any other (and not found), after the chat.
 */
function checkEditTarget(p: {
  chat_id?: { id: string; text: string };
  message_id?: number;
  inline_message_id?: string;
  business_connection_id?: string;
}) {
  const messageId = Math.max(p.message_id ?? 0, 0);
  if (p.chat_id === undefined && messageId === 0)
    return p.inline_message_id === undefined ? Errors.messageIdInvalid() : Errors.inlineMessagesUnsupported();
  const business = checkBusinessConnection(p.business_connection_id, p.chat_id?.text);
  if (business) return business;
  if (p.chat_id === undefined) return Errors.chatIdEmpty();
  return { chat_id: p.chat_id.id, message_id: messageId };
}

export const EditMessageTextParams = z.object({ ...target, ...textShape }).transform((p, ctx) => {
  const text = readMessageText(p);
  if (isError(text)) return fail(ctx, text);
  const markup = readReplyMarkup(p.reply_markup, true);
  if (isError(markup)) return fail(ctx, markup);
  const where = checkEditTarget(p);
  if (isError(where)) return fail(ctx, where);
  return { ...where, text: text.text, entities: text.entities, reply_markup: markup };
});
export type EditMessageTextParams = z.infer<typeof EditMessageTextParams>;

export const EditMessageReplyMarkupParams = z
  .object({ ...target, reply_markup: optionalString() })
  .transform((p, ctx) => {
    const markup = readReplyMarkup(p.reply_markup, true);
    if (isError(markup)) return fail(ctx, markup);
    const where = checkEditTarget(p);
    if (isError(where)) return fail(ctx, where);
    return { ...where, reply_markup: markup };
  });
export type EditMessageReplyMarkupParams = z.infer<typeof EditMessageReplyMarkupParams>;

/** deleteMessage checks its own two ids first (line 13792). */
export const DeleteMessageParams = z.object({ chat_id: chatIdParam(), message_id: looseInt() }).transform((p, ctx) => {
  if (p.chat_id === undefined) return fail(ctx, Errors.chatIdNotSpecified());
  const messageId = Math.max(p.message_id ?? 0, 0);
  if (messageId === 0) return fail(ctx, Errors.messageIdInvalid());
  return { chat_id: p.chat_id.id, message_id: messageId };
});
export type DeleteMessageParams = z.infer<typeof DeleteMessageParams>;
