import { randomBytes } from "node:crypto";
import {
  chatJson,
  crashPoint,
  type Chat,
  Errors,
  failure,
  findChat,
  getBot,
  keys,
  kindArgs,
  logArgs,
  logKeys,
  success,
  updateKind,
  type MethodOutcome,
  type ParamsOf,
  type PaymentBody,
} from "@starpost/shared";
import { signalWebhook } from "./append.ts";
import type { InvoiceDomain } from "./deps.ts";
import type { InvoiceRecord } from "./send-invoice.ts";

/** A pre-checkout query lives 150 s, like the update that carries it. */
const QUERY_LIFETIME_MS = 150_000;
/** A payment with an idempotency_key (and its query) is remembered this long for repeats. */
export const IDEMPOTENCY_LIFETIME_MS = 86_400_000;

/** Query ids look like Telegram's: a decimal 63-bit number. */
const newQueryId = () => (randomBytes(8).readBigUInt64BE() >> 1n).toString();
const newChargeId = () => `stxsp${randomBytes(24).toString("base64url")}`;

/** The payer as a Bot API User, fields in the official order. */
function payer(user: PaymentBody["user"]) {
  const u = user as Record<string, unknown>;
  const out: Record<string, unknown> = { id: user.id, is_bot: false, first_name: user.first_name };
  for (const k of ["last_name", "username", "language_code", "is_premium"]) if (u[k] !== undefined) out[k] = u[k];
  return out;
}

export type PaymentResult =
  | { status: "paid"; telegram_payment_charge_id: string }
  | { status: "declined"; error_message: string }
  | { status: "expired" };

/**
 * The query a payment emits and the fields stored with it: everything the answer and a later
 * refund write (charge, ledger entries, the messages' parts), so their Lua steps only assemble it.
 */
function paymentRecord(invoice: InvoiceRecord, chat: Chat, user: Record<string, unknown>, queryId: string) {
  const chargeId = newChargeId();
  const date = Math.floor(Date.now() / 1000);
  const partner = JSON.stringify({ type: "user", transaction_type: "invoice_payment", user, invoice_payload: invoice.payload });
  const userJson = JSON.stringify(user);
  const chatJsonText = JSON.stringify(chatJson(chat));
  const payment = { currency: "XTR", total_amount: invoice.total_amount, invoice_payload: invoice.payload, telegram_payment_charge_id: chargeId };
  const messageQueue = updateKind("message")!.queueKey({ chat });
  const charge = {
    id: chargeId,
    status: "paid",
    user_id: String(user.id),
    chat_id: String(chat.id),
    amount: String(invoice.total_amount),
    payload: invoice.payload,
    date,
    queue: messageQueue,
    from_json: userJson,
    chat_json: chatJsonText,
    partner,
    refunded_payment: JSON.stringify(payment),
  };
  const query = { id: queryId, from: user, currency: invoice.currency, total_amount: invoice.total_amount, invoice_payload: invoice.payload };
  const fields = {
    amount: String(invoice.total_amount),
    chat_id: String(chat.id),
    charge_id: chargeId,
    charge: JSON.stringify(charge),
    txn: `{"id":${JSON.stringify(chargeId)},"amount":${invoice.total_amount},"date":${date},"source":${partner}}`,
    user: userJson,
    chat: chatJsonText,
    paid: JSON.stringify({ ...payment, provider_payment_charge_id: "" }),
    queue: messageQueue,
  };
  return { query, fields };
}

/**
 * `POST /platform/v1/bots/:botId/payments`: a user pays an invoice message. Emits the
 * pre_checkout_query and waits (≤ 10 s) for the bot's answer, which may reach any replica;
 * everything the answer needs — the charge and the ledger entry it will write — is stored with
 * the query, so the answering replica moves the money in one Lua step.
 */
export async function pay(d: InvoiceDomain, botId: string, body: PaymentBody): Promise<MethodOutcome> {
  const { redis } = d;
  if (!(await getBot(redis, botId))) return failure(Errors.botNotFound());
  const chat = await findChat(redis, botId, body.chat_id);
  if (!chat) return failure(Errors.chatNotFound());
  const recordJson = await redis.hget(keys.invoices(botId), `${chat.id}:${body.message_id}`);
  if (!recordJson) return failure(Errors.invoiceMessageNotFound());
  const invoice = JSON.parse(recordJson) as InvoiceRecord;

  const user = payer(body.user);
  let queryId = newQueryId();
  const { query, fields } = paymentRecord(invoice, chat, user, queryId);
  const userJson = fields.user;

  const key = body.idempotency_key;
  const fingerprint = JSON.stringify([fields.chat_id, body.message_id, user.id]);
  let waiting = await d.waiters.wait(botId, queryId, d.answerTimeoutMs);
  const [outcome, a, b] = await redis.spRecordPreCheckout(
    ...logKeys(botId),
    keys.preCheckout(botId, queryId),
    keys.users(botId),
    keys.paymentKey(botId, key ?? ""),
    ...logArgs(botId),
    ...kindArgs("pre_checkout_query"),
    updateKind("pre_checkout_query")!.queueKey(query),
    JSON.stringify(query),
    key === undefined ? QUERY_LIFETIME_MS : IDEMPOTENCY_LIFETIME_MS,
    d.answerTimeoutMs,
    String(user.id),
    userJson,
    key === undefined ? "0" : "1",
    queryId,
    fingerprint,
    ...Object.entries(fields).flat(),
  );
  if (outcome === "repeat") {
    d.waiters.wakeLocal(waiting.key);
    if (b !== 1) return failure(Errors.idempotencyKeyReused());
    // The first attempt's query: wait for its answer (or its deadline) like the first attempt.
    queryId = String(a);
    waiting = await d.waiters.wait(botId, queryId, d.answerTimeoutMs);
    const [state, deadline] = await redis.hmget(keys.preCheckout(botId, queryId), "state", "deadline");
    if (state !== "pending" || Number(deadline) <= Date.now()) d.waiters.wakeLocal(waiting.key);
  } else {
    await signalWebhook(d, botId, Number(a));
    // A bot that excluded pre_checkout_query from allowed_updates can never answer: expire now.
    if (typeof b !== "number") d.waiters.wakeLocal(waiting.key);
  }
  await waiting.answered;

  const [state, settledCharge, errorMessage] = await redis.spSettlePreCheckout(keys.preCheckout(botId, queryId));
  if (outcome === "repeat" && state === "missing") return success({ status: "expired" });
  const result: PaymentResult =
    state === "paid"
      ? { status: "paid", telegram_payment_charge_id: settledCharge }
      : state === "declined"
        ? { status: "declined", error_message: errorMessage }
        : { status: "expired" };
  if (outcome !== "repeat") d.onPayment(result.status);
  return success(result);
}

/**
 * answerPreCheckoutQuery: once per query, within the deadline, on any replica. The money and the
 * successful_payment message move in one Lua step; what follows (the drain job, the payer's
 * wake-up) is resumed by the reconciler and the payer's own deadline if this process dies.
 */
export async function answerPreCheckoutQuery(
  d: InvoiceDomain,
  botId: string,
  p: ParamsOf<"answerPreCheckoutQuery">,
): Promise<MethodOutcome> {
  const { redis } = d;
  const queryId = p.pre_checkout_query_id;
  // Ids are ours (digits only); anything else cannot name a query and must not shape a key.
  if (!/^\d{1,20}$/.test(queryId)) return failure(Errors.preCheckoutQueryInvalid());
  crashPoint("answer-pre-checkout:before-script");
  const [answer, webhook] = await redis.spAnswerPreCheckout(
    ...logKeys(botId),
    keys.preCheckout(botId, queryId),
    keys.charges(botId),
    keys.starLedger(botId),
    keys.starBalance(botId),
    keys.messageSeq(botId),
    keys.messages(botId),
    ...logArgs(botId),
    ...kindArgs("message"),
    p.ok ? "1" : "0",
    p.error_message ?? "",
  );
  crashPoint("answer-pre-checkout:after-script");
  if (answer === "invalid") return failure(Errors.preCheckoutQueryInvalid());
  await signalWebhook(d, botId, webhook);
  await d.waiters.wake(redis, botId, queryId);
  return success(true);
}
