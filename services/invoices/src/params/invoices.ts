import { z } from "zod";
import { readReplyMarkup, readReplyParameters, type InlineKeyboardMarkup, type ReplyParameters } from "./markup.ts";
import { checkBusinessConnection, checkSuggestedPost } from "./options.ts";
import {
  BotApiError,
  Errors,
  fail,
  asText,
  boolParam,
  int64Id,
  looseInt,
  optionalString,
  requiredString,
  toInteger,
  toIntegerSafe,
  decodeJson,
  isJsonObject,
  JsonNumber,
  JsonFieldError,
  longField,
  stringField,
  chatIdParam,
  reader,
  strictInt64,
} from "@starpost/shared";

/**
 * Parameters of the Stars methods (owned by services/invoices). The official server checks a
 * product in a fixed order — required strings, currency, prices, then the limits, the tips and the
 * star rules — and reports only the first failure. zod reports object fields in shape order, so
 * the base shapes below only coerce and parse what must come first; the ordered checks run in a
 * transform whose output is the type handlers receive.
 */

export interface LabeledPrice {
  label: string;
  amount: number;
}

/** Parses `prices` the way the official server does (Client.cpp at 01a3679, lines 9845-9883, 11981), keeping its first error. */
function parsePrices(raw: unknown): LabeledPrice[] | BotApiError {
  if (raw === undefined || raw === "") return Errors.paramRequired("prices");
  const value = decodeJson(asText(raw)!);
  if (value === undefined) return Errors.pricesJson();
  if (!Array.isArray(value)) return Errors.pricesNotArray();
  const prices: LabeledPrice[] = [];
  for (const item of value) {
    if (!isJsonObject(item)) return Errors.labeledPriceInvalid("LabeledPrice must be an Object");
    const label = stringField(item, "label");
    if (label instanceof JsonFieldError) return Errors.labeledPriceInvalid(label.message);
    if (label === "") return Errors.labeledPriceInvalid("LabeledPrice label must be non-empty");
    const amount = longField(item, "amount");
    if (amount instanceof JsonFieldError) return Errors.labeledPriceInvalid(amount.message);
    prices.push({ label, amount: Number(amount) });
  }
  if (prices.length === 0) return Errors.noPrices();
  return prices;
}

const pricesParam = () =>
  reader(
    "parsePrices",
    z.unknown().transform((raw, ctx) => {
      const parsed = parsePrices(raw);
      if (Array.isArray(parsed)) return parsed;
      return fail(ctx, parsed);
    }),
  );

/** Fields of a product (sendInvoice and createInvoiceLink), in the official check order. */
const productShape = {
  title: requiredString("title"),
  description: requiredString("description"),
  payload: requiredString("payload"),
  currency: requiredString("currency"),
  prices: pricesParam(),
  provider_token: optionalString(),
  // to_integer_safe<int64> (Client.cpp at 01a3679, line 11994): anything but an integer's exact
  // decimal form is an error.
  max_tip_amount: strictInt64(Errors.maxTipNotNumber),
  suggested_tip_amounts: reader(
    "parseTips",
    z
      .unknown()
      .transform((raw, ctx) => {
        const tips = parseTips(raw);
        return Array.isArray(tips) ? tips : fail(ctx, tips);
      })
      .optional(),
  ),
  provider_data: optionalString(),
  photo_url: optionalString(),
  // get_integer_arg (line 12013): never an error.
  photo_size: looseInt(),
  photo_width: looseInt(),
  photo_height: looseInt(),
  need_name: boolParam(),
  need_phone_number: boolParam(),
  need_email: boolParam(),
  need_shipping_address: boolParam(),
  send_phone_number_to_provider: boolParam(),
  send_email_to_provider: boolParam(),
  is_flexible: boolParam(),
};

const MAX_TITLE = 32;
const MAX_DESCRIPTION = 255;
const MAX_PAYLOAD_BYTES = 128;
const MAX_SUGGESTED_TIPS = 4;

/** Characters as a person counts them: Unicode code points, not UTF-16 units. */
const chars = (s: string) => [...s].length;

/** `suggested_tip_amounts` as the reference parses it (Client.cpp at 01a3679, lines 9885 and 12001): its errors only. */
function parseTips(raw: unknown): bigint[] | BotApiError {
  if (raw === undefined || raw === "") return [];
  const value = decodeJson(asText(raw)!);
  if (value === undefined) return Errors.tipsJson();
  if (!Array.isArray(value)) return Errors.tipsNotArray();
  const tips: bigint[] = [];
  for (const t of value) {
    const text = typeof t === "string" ? t : t instanceof JsonNumber ? t.text : undefined;
    if (text === undefined) return Errors.tipNotNumberOrString();
    const n = toIntegerSafe(text);
    if (n === undefined) return Errors.tipNotNumber();
    tips.push(n);
  }
  return tips;
}

/** The tip rules (TDLib's, InputInvoice.cpp: each tip positive and not above max_tip_amount, then at most 4; then strictly increasing). */
function checkTips(tips: bigint[], maxTip: number): BotApiError | undefined {
  for (const tip of tips) {
    if (tip <= 0n) return Errors.tipNotPositive();
    if (tip > BigInt(maxTip)) return Errors.tipAboveMax();
  }
  if (tips.length > MAX_SUGGESTED_TIPS) return Errors.tipsTooMany();
  for (let i = 1; i < tips.length; i++) if (tips[i]! <= tips[i - 1]!) return Errors.tipsNotIncreasing();
  return undefined;
}

type ProductInput = z.infer<z.ZodObject<typeof productShape>>;

/** A product that passed every check: a Stars invoice of one price. */
export interface Product {
  title: string;
  description: string;
  payload: string;
  currency: "XTR";
  prices: LabeledPrice[];
  total_amount: number;
}

/** TDLib's bound on any amount of a currency (td/telegram/misc.cpp, check_currency_amount). */
const MAX_CURRENCY_AMOUNT = 999_999_999_999;
const currencyAmount = (n: number) => Math.abs(n) <= MAX_CURRENCY_AMOUNT;

/** TDLib's checks of the price parts (LabeledPricePart.cpp), with their texts. */
function checkPriceParts(prices: LabeledPrice[]): BotApiError | undefined {
  if (!prices.every((p) => currencyAmount(p.amount))) return Errors.priceTooBig();
  const total = prices.reduce((sum, p) => sum + p.amount, 0);
  if (total <= 0) return Errors.totalPriceNotPositive();
  if (!currencyAmount(total)) return Errors.totalPriceTooBig();
  return undefined;
}

/**
 * The limits, TDLib's price and tip checks and the star rules, in the official order; the first
 * failure or the product. The parse errors of each parameter came before, in the schema.
 */
export function checkProduct(p: ProductInput): Product | BotApiError {
  if (chars(p.title) > MAX_TITLE) return Errors.titleInvalid();
  if (chars(p.description) > MAX_DESCRIPTION) return Errors.descriptionInvalid();
  if (Buffer.byteLength(p.payload, "utf8") > MAX_PAYLOAD_BYTES) return Errors.payloadInvalid();
  const prices = p.prices;
  const priceError = checkPriceParts(prices);
  if (priceError) return priceError;
  const maxTip = p.max_tip_amount ?? 0;
  if (maxTip < 0 || !currencyAmount(maxTip)) return Errors.maxTipInvalid();
  const tips = p.suggested_tip_amounts ?? [];
  const tipError = checkTips(tips, maxTip);
  if (tipError) return tipError;
  // starpost takes Stars only (spec 4.1): any provider or another currency is refused.
  if (p.currency !== "XTR" || (p.provider_token ?? "") !== "") return Errors.paymentProviderInvalid();
  if (maxTip > 0 || tips.length > 0 || prices.length !== 1 || prices[0]!.amount <= 0)
    return Errors.starsInvoiceInvalid();
  return {
    title: p.title,
    description: p.description,
    payload: p.payload,
    currency: "XTR",
    prices,
    total_amount: prices[0]!.amount,
  };
}

/** reply_markup of an invoice: empty means the default Pay button; otherwise it must start with one. */
function checkInvoiceMarkup(markup: InlineKeyboardMarkup | undefined): InlineKeyboardMarkup | undefined | BotApiError {
  if (markup === undefined) return markup;
  if (markup.inline_keyboard[0]![0]!.pay !== true) return Errors.replyMarkupInvalid();
  return markup;
}

export const isError = (v: unknown): v is BotApiError => v instanceof BotApiError;

/** Where and how a message is sent (sendInvoice, sendMessage). */
export const sendingShape = {
  chat_id: chatIdParam(),
  reply_markup: optionalString(),
  reply_parameters: optionalString(),
  // Read only without reply_parameters (get_reply_parameters, Client.cpp at 01a3679, line 9389).
  reply_to_message_id: looseInt(),
  allow_sending_without_reply: boolParam(),
  disable_notification: boolParam(),
  protect_content: boolParam(),
  // Accepted and without effect in starpost (spec 4.1, rule 3).
  message_thread_id: looseInt(),
  direct_messages_topic_id: looseInt(),
  allow_paid_broadcast: boolParam(),
  message_effect_id: optionalString(),
  suggested_post_parameters: optionalString(),
  business_connection_id: optionalString(),
};

type SendingInput = z.infer<z.ZodObject<typeof sendingShape>>;

/**
 * do_send_message's own reading (Client.cpp at 01a3679, line 16117), before the chat: the reply,
 * the suggested post, the markup, then a business connection. The reply and markup, or the first
 * error.
 */
export function readSending(
  p: SendingInput,
): { reply: ReplyParameters | undefined; markup: InlineKeyboardMarkup | undefined } | BotApiError {
  const reply = readReplyParameters(p.reply_parameters, p);
  if (isError(reply)) return reply;
  const suggested = checkSuggestedPost(p.suggested_post_parameters);
  if (suggested) return suggested;
  const markup = readReplyMarkup(p.reply_markup);
  if (isError(markup)) return markup;
  return checkBusinessConnection(p.business_connection_id, p.chat_id?.text) ?? { reply, markup };
}

export const SendInvoiceParams = z
  .object({
    ...productShape,
    ...sendingShape,
    start_parameter: optionalString(),
  })
  .transform((p, ctx) => {
    // The sending options are read before the chat and TDLib's checks.
    const sending = readSending(p);
    if (isError(sending)) return fail(ctx, sending);
    const product = checkProduct(p);
    if (isError(product)) return fail(ctx, product);
    const markup = checkInvoiceMarkup(sending.markup);
    if (isError(markup)) return fail(ctx, markup);
    return {
      product,
      chat_id: p.chat_id?.id ?? "",
      start_parameter: p.start_parameter ?? "",
      reply_markup: markup,
      reply_parameters: sending.reply,
      protect_content: p.protect_content === true,
      disable_notification: p.disable_notification === true,
    };
  });
export type SendInvoiceParams = z.infer<typeof SendInvoiceParams>;

/** The one subscription period Telegram allows: 30 days. */
export const SUBSCRIPTION_PERIOD = 2_592_000;

export const CreateInvoiceLinkParams = z
  .object({
    ...productShape,
    business_connection_id: optionalString(),
    subscription_period: looseInt(),
  })
  .transform((p, ctx) => {
    // process_create_invoice_link_query: the product's own reading, then the business connection.
    if (p.business_connection_id !== undefined) return fail(ctx, Errors.businessConnectionNotFound());
    const product = checkProduct(p);
    if (isError(product)) return fail(ctx, product);
    // get_integer_arg(…, 0, 0) (line 12034): a negative period is 0, no subscription.
    const period = Math.max(p.subscription_period ?? 0, 0);
    if (period !== 0 && period !== SUBSCRIPTION_PERIOD) return fail(ctx, Errors.subscriptionPeriodInvalid());
    return { product, subscription_period: period === 0 ? undefined : period };
  });
export type CreateInvoiceLinkParams = z.infer<typeof CreateInvoiceLinkParams>;

export const AnswerPreCheckoutQueryParams = z
  .object({
    pre_checkout_query_id: int64Id(),
    ok: boolParam(),
    error_message: optionalString(),
  })
  .transform((p, ctx) => {
    // As in the official server: a missing `ok` is false, and a refusal must say why.
    const ok = p.ok === true;
    if (!ok && p.error_message === undefined) return fail(ctx, Errors.preCheckoutErrorRequired());
    return { pre_checkout_query_id: p.pre_checkout_query_id, ok, error_message: ok ? undefined : p.error_message };
  });
export type AnswerPreCheckoutQueryParams = z.infer<typeof AnswerPreCheckoutQueryParams>;

// The reference's get_user_id (Client.cpp at 01a3679, line 12452): max(to_integer<int64>, 0); 0,
// a missing id included, is an invalid id.
const userId = () =>
  reader(
    "userId",
    z.unknown().transform((v, ctx) => {
      const id = toInteger(v === undefined ? "" : asText(v)!, 64);
      return id > 0n ? Number(id) : fail(ctx, Errors.userIdInvalid());
    }),
  );

export const RefundStarPaymentParams = z.object({
  user_id: userId(),
  telegram_payment_charge_id: requiredString("telegram_payment_charge_id"),
});
export type RefundStarPaymentParams = z.infer<typeof RefundStarPaymentParams>;

/** The subscription is named by its first payment's charge id; a missing is_canceled is false, as in the reference. */
export const EditUserStarSubscriptionParams = z.object({
  user_id: userId(),
  telegram_payment_charge_id: requiredString("telegram_payment_charge_id"),
  is_canceled: boolParam(),
});
export type EditUserStarSubscriptionParams = z.infer<typeof EditUserStarSubscriptionParams>;

/** offset from 0, limit clamped to 1..100 (default 100), never an error. */
export const GetStarTransactionsParams = z
  .object({ offset: looseInt(), limit: looseInt() })
  .transform((p) => ({ offset: Math.max(0, p.offset ?? 0), limit: Math.min(100, Math.max(1, p.limit ?? 100)) }));
export type GetStarTransactionsParams = z.infer<typeof GetStarTransactionsParams>;

export const GetMyStarBalanceParams = z.object({});
export const GetAvailableGiftsParams = z.object({});
