import {
  boolField,
  decodeJson,
  Errors,
  intField,
  isJsonObject,
  isFieldError,
  longField,
  stringField,
  toIntegerSafe,
  type BotApiError,
} from "@starpost/shared";

/**
 * The sending options starpost accepts without acting on them, read for their errors as the
 * reference reads them (Client.cpp at 01a3679): link_preview_options (get_link_preview_options,
 * line 11362), suggested_post_parameters (get_input_suggested_post_info, line 9814) and
 * business_connection_id (check_business_connection_chat_id, line 8319). starpost has no
 * business connections, so any business connection is one the reference would not find.
 */

export function checkLinkPreviewOptions(raw: string | undefined): BotApiError | undefined {
  if (raw === undefined || raw === "") return undefined; // then disable_web_page_preview, a to_bool
  const value = decodeJson(raw);
  if (value === undefined) return Errors.linkPreviewOptionsJson();
  if (!isJsonObject(value)) return Errors.linkPreviewOptionsNotObject();
  for (const [name, read] of [
    ["is_disabled", boolField],
    ["url", stringField],
    ["prefer_small_media", boolField],
    ["prefer_large_media", boolField],
    ["show_above_text", boolField],
  ] as const) {
    const v = read === stringField ? stringField(value, name, "") : boolField(value, name, false);
    if (isFieldError(v)) return Errors.fieldInvalid(v.message);
  }
  return undefined;
}

/**
 * Parse errors only. A suggested post that parses is accepted and has no effect, as the contract
 * lists it for sendInvoice; TDLib would go on to refuse it outside a channel's direct messages
 * (MessageSendOptions.cpp), which no starpost chat is.
 */
export function checkSuggestedPost(raw: string | undefined): BotApiError | undefined {
  if (raw === undefined || raw === "") return undefined;
  const value = decodeJson(raw);
  if (value === undefined) return Errors.suggestedPostJson();
  if (!isJsonObject(value)) return Errors.suggestedPostNotObject();
  const sendDate = intField(value, "send_date", 0);
  if (isFieldError(sendDate)) return Errors.fieldInvalid(sendDate.message);
  if (Object.hasOwn(value, "price")) {
    const price = value.price;
    if (!isJsonObject(price)) return Errors.fieldInvalid('Field "price" must be of type Object');
    const currency = stringField(price, "currency");
    if (isFieldError(currency)) return Errors.fieldInvalid(currency.message);
    const amount = longField(price, "amount");
    if (isFieldError(amount)) return Errors.fieldInvalid(amount.message);
    if (currency === "TON" && amount % 10_000_000n !== 0n) return Errors.suggestedPostTonAmount();
    if (currency !== "XTR" && currency !== "TON") return Errors.suggestedPostCurrency();
  }
  return undefined;
}

/** A business connection given with a message: the chat must be an integer, then the connection is not found. */
export function checkBusinessConnection(
  id: string | undefined,
  rawChatId: string | undefined,
): BotApiError | undefined {
  if (id === undefined || id === "") return undefined;
  if (rawChatId === undefined || rawChatId === "") return Errors.businessChatIdEmpty();
  if (toIntegerSafe(rawChatId) === undefined) return Errors.businessChatIdInvalid();
  return Errors.businessConnectionNotFound();
}
