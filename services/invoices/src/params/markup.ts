import {
  boolField,
  decodeJson,
  Errors,
  intField,
  isJsonObject,
  JsonFieldError,
  isFieldError,
  longField,
  stringField,
  type BotApiError,
  type JsonObject,
  type JsonValue,
} from "@starpost/shared";

/**
 * reply_markup and reply_parameters as the reference reads them (Client.cpp at 01a3679:
 * get_reply_markup line 9697, get_inline_keyboard_button 9574 and its type 9587,
 * get_keyboard_button 9553, get_reply_parameters 9388), with td's JSON (`decodeJson`) and field
 * getters and the same texts. The inline keyboard comes out as JsonInlineKeyboardButton writes it
 * (line 3778): text, icon_custom_emoji_id, style, then the one action field.
 */

export interface InlineKeyboardMarkup {
  inline_keyboard: Record<string, unknown>[][];
}

const MAX_CALLBACK_DATA_BYTES = 64;

type Read<T> = T | JsonFieldError;

/** An object field that must be an object when present (td's extract_required_field with type Object). */
function objectField(o: JsonObject, name: string): JsonObject | JsonFieldError {
  const v = o[name];
  return isJsonObject(v) ? v : new JsonFieldError(`Field "${name}" must be of type Object`);
}

const STYLES = new Set(["primary", "danger", "success"]);

/** get_button_style (line 9440): "", "default" or one of three styles, in any case. */
function buttonStyle(o: JsonObject): Read<string | undefined> {
  const style = stringField(o, "style", "");
  if (isFieldError(style)) return style;
  const lower = style.toLowerCase();
  if (lower === "" || lower === "default") return undefined;
  return STYLES.has(lower) ? lower : new JsonFieldError("invalid button style specified");
}

/** The action of an inline button (get_inline_keyboard_button_type), as the reference writes it back. */
function buttonAction(o: JsonObject): Read<Record<string, unknown>> {
  const url = stringField(o, "url", "");
  if (isFieldError(url) || url !== "") return isFieldError(url) ? url : { url };
  const data = stringField(o, "callback_data", "");
  if (isFieldError(data) || data !== "") return isFieldError(data) ? data : { callback_data: data };
  if (Object.hasOwn(o, "callback_game")) return { callback_game: {} };
  if (Object.hasOwn(o, "pay")) return { pay: true };
  if (Object.hasOwn(o, "switch_inline_query")) {
    const query = stringField(o, "switch_inline_query");
    return isFieldError(query) ? query : { switch_inline_query: query };
  }
  if (Object.hasOwn(o, "switch_inline_query_chosen_chat")) {
    const chosen = objectField(o, "switch_inline_query_chosen_chat");
    if (isFieldError(chosen)) return chosen;
    const query = stringField(chosen, "query", "");
    if (isFieldError(query)) return query;
    const allow: Record<string, boolean> = {};
    for (const k of ["allow_user_chats", "allow_bot_chats", "allow_group_chats", "allow_channel_chats"]) {
      const b = boolField(chosen, k, false);
      if (isFieldError(b)) return b;
      allow[k] = b;
    }
    if (Object.values(allow).every(Boolean)) return { switch_inline_query: query };
    return { switch_inline_query_chosen_chat: { query, ...allow } };
  }
  if (Object.hasOwn(o, "switch_inline_query_current_chat")) {
    const query = stringField(o, "switch_inline_query_current_chat");
    return isFieldError(query) ? query : { switch_inline_query_current_chat: query };
  }
  if (Object.hasOwn(o, "login_url")) {
    const login = objectField(o, "login_url");
    if (isFieldError(login)) return login;
    const loginUrl = stringField(login, "url");
    if (isFieldError(loginUrl)) return loginUrl;
    const bot = stringField(login, "bot_username", "");
    if (isFieldError(bot)) return bot;
    const name = bot.startsWith("@") ? bot.slice(1) : bot;
    if (bot !== "" && !/^[A-Za-z0-9_]+$/.test(name)) return new JsonFieldError("LoginUrl bot username is invalid");
    const writeAccess = boolField(login, "request_write_access", false);
    if (isFieldError(writeAccess)) return writeAccess;
    const forward = stringField(login, "forward_text", "");
    return isFieldError(forward) ? forward : { url: loginUrl };
  }
  if (Object.hasOwn(o, "web_app")) {
    const app = objectField(o, "web_app");
    if (isFieldError(app)) return app;
    const appUrl = stringField(app, "url");
    return isFieldError(appUrl) ? appUrl : { web_app: { url: appUrl } };
  }
  if (Object.hasOwn(o, "copy_text")) {
    const copy = objectField(o, "copy_text");
    if (isFieldError(copy)) return copy;
    const text = stringField(copy, "text");
    return isFieldError(text) ? text : { copy_text: { text } };
  }
  return new JsonFieldError("Text buttons are unallowed in the inline keyboard");
}

function inlineButton(v: JsonValue): Read<Record<string, unknown>> {
  if (!isJsonObject(v)) return new JsonFieldError("InlineKeyboardButton must be an Object");
  const text = stringField(v, "text");
  if (isFieldError(text)) return text;
  const icon = longField(v, "icon_custom_emoji_id", 0n);
  if (isFieldError(icon)) return icon;
  const style = buttonStyle(v);
  if (isFieldError(style)) return style;
  const action = buttonAction(v);
  if (isFieldError(action)) return action;
  return {
    text,
    ...(icon !== 0n ? { icon_custom_emoji_id: icon.toString() } : {}),
    ...(style ? { style } : {}),
    ...action,
  };
}

/** A reply keyboard's button (get_keyboard_button): a String, or an Object with text, icon and style (its request_* kinds are not read). */
function keyboardButton(v: JsonValue): JsonFieldError | undefined {
  if (typeof v === "string") return undefined;
  if (!isJsonObject(v)) return new JsonFieldError("KeyboardButton must be a String or an Object");
  for (const r of [stringField(v, "text"), longField(v, "icon_custom_emoji_id", 0n), buttonStyle(v)])
    if (isFieldError(r)) return r;
  return undefined;
}

/** An optional field of a type (td's extract_optional_field): absent is undefined. */
function arrayField(o: JsonObject, name: string): JsonValue[] | undefined | JsonFieldError {
  if (!Object.hasOwn(o, name)) return undefined;
  const v = o[name]!;
  return Array.isArray(v) ? v : new JsonFieldError(`Field "${name}" must be of type Array`);
}

const KEYBOARD_FLAGS = [
  "hide_keyboard",
  "remove_keyboard",
  "personal_keyboard",
  "selective",
  "force_reply_keyboard",
  "force_reply",
];

/**
 * reply_markup: an inline keyboard to show, undefined for none (absent, empty, or another kind of
 * markup: a reply keyboard, its removal or a forced reply are read, checked and not shown), or the
 * reference's error. `inlineOnly` (the edits): another kind is TDLib's `inline keyboard expected`
 * (ReplyMarkup.cpp, get_reply_markup).
 */
export function readReplyMarkup(
  raw: string | undefined,
  inlineOnly = false,
): InlineKeyboardMarkup | undefined | BotApiError {
  if (raw === undefined || raw === "") return undefined;
  const value = decodeJson(raw);
  if (value === undefined) return Errors.replyMarkupJson();
  if (!isJsonObject(value)) return Errors.replyMarkupNotObject();
  const keyboard = arrayField(value, "keyboard");
  if (isFieldError(keyboard)) return Errors.fieldInvalid(keyboard.message);
  for (const row of keyboard ?? []) {
    if (!Array.isArray(row)) return Errors.keyboardNotArrays();
    for (const b of row) {
      const err = keyboardButton(b);
      if (err) return Errors.keyboardButtonInvalid(err.message);
    }
  }
  const inline = arrayField(value, "inline_keyboard");
  if (isFieldError(inline)) return Errors.fieldInvalid(inline.message);
  const rows: Record<string, unknown>[][] = [];
  for (const row of inline ?? []) {
    if (!Array.isArray(row)) return Errors.inlineKeyboardNotArrays();
    const buttons: Record<string, unknown>[] = [];
    for (const b of row) {
      const button = inlineButton(b);
      if (isFieldError(button)) return Errors.inlineButtonInvalid(button.message);
      buttons.push(button);
    }
    if (buttons.length > 0) rows.push(buttons);
  }
  let otherKind = false;
  for (const flag of KEYBOARD_FLAGS) {
    const b = boolField(value, flag, false);
    if (isFieldError(b)) return Errors.fieldInvalid(b.message);
    // A removal or a forced reply, when there is no keyboard of either kind.
    if (b && flag !== "personal_keyboard" && flag !== "selective") otherKind = true;
  }
  const placeholder = stringField(value, "input_field_placeholder", "");
  if (isFieldError(placeholder)) return Errors.fieldInvalid(placeholder.message);
  if ((keyboard ?? []).length > 0) {
    for (const flag of ["resize_keyboard", "one_time_keyboard", "is_persistent"]) {
      const b = boolField(value, flag, false);
      if (isFieldError(b)) return Errors.fieldInvalid(b.message);
    }
    // A reply keyboard wins over an inline one, as in the reference.
    return inlineOnly ? Errors.inlineKeyboardExpected() : undefined;
  }
  if (inlineOnly && otherKind && (inline ?? []).length === 0) return Errors.inlineKeyboardExpected();
  for (const row of rows)
    for (const b of row)
      if (typeof b.callback_data === "string" && Buffer.byteLength(b.callback_data) > MAX_CALLBACK_DATA_BYTES)
        return Errors.buttonDataInvalid();
  return rows.length === 0 ? undefined : { inline_keyboard: rows };
}

export interface ReplyParameters {
  message_id: number;
  chat_id?: string;
  allow_sending_without_reply: boolean;
}

/**
 * reply_parameters (get_reply_parameters, line 9388); without it the older reply_to_message_id
 * and allow_sending_without_reply. The quote fields are read for their errors and not kept.
 */
export function readReplyParameters(
  raw: string | undefined,
  legacy: { reply_to_message_id?: number; allow_sending_without_reply?: boolean },
): ReplyParameters | undefined | BotApiError {
  if (raw === undefined) {
    const id = legacy.reply_to_message_id ?? 0;
    return id > 0
      ? { message_id: id, allow_sending_without_reply: legacy.allow_sending_without_reply ?? false }
      : undefined;
  }
  if (raw === "") return undefined;
  const value = decodeJson(raw);
  if (value === undefined) return Errors.replyParametersJson();
  if (!isJsonObject(value)) return Errors.replyParametersNotObject();
  if (Object.keys(value).length === 0) return undefined;
  const chatId = stringField(value, "chat_id", "");
  if (isFieldError(chatId)) return Errors.fieldInvalid(chatId.message);
  const messageId = intField(value, "message_id");
  if (isFieldError(messageId)) return Errors.fieldInvalid(messageId.message);
  const allow = boolField(value, "allow_sending_without_reply", false);
  if (isFieldError(allow)) return Errors.fieldInvalid(allow.message);
  for (const name of ["quote", "quote_parse_mode"]) {
    const s = stringField(value, name, "");
    if (isFieldError(s)) return Errors.fieldInvalid(s.message);
  }
  for (const name of ["quote_position", "checklist_task_id"]) {
    const n = intField(value, name, 0);
    if (isFieldError(n)) return Errors.fieldInvalid(n.message);
  }
  if (messageId <= 0) return undefined;
  return { message_id: messageId, ...(chatId !== "" ? { chat_id: chatId } : {}), allow_sending_without_reply: allow };
}
