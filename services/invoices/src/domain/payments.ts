import { randomBytes } from "node:crypto";
import {
  chatJson,
  Errors,
  failure,
  findChat,
  getBot,
  keys,
  success,
  type MethodOutcome,
  type ParamsOf,
  type PaymentBody,
} from "@starpost/shared";
import { appendPaymentUpdate } from "./append.ts";
import type { InvoiceDomain } from "./deps.ts";
import type { InvoiceRecord } from "./send-invoice.ts";

/** A pre-checkout query lives 150 s, like the update that carries it. */
const QUERY_LIFETIME_MS = 150_000;

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
  const queryId = newQueryId();
  const chargeId = newChargeId();
  const date = Math.floor(Date.now() / 1000);
  const partner = { type: "user", transaction_type: "invoice_payment", user, invoice_payload: invoice.payload };
  const charge = {
    id: chargeId,
    status: "paid",
    user_id: String(user.id),
    chat_id: String(chat.id),
    amount: String(invoice.total_amount),
    payload: invoice.payload,
    date,
    user,
    chat: chatJson(chat),
  };
  const pcqKey = keys.preCheckout(botId, queryId);
  await redis
    .multi()
    .hset(pcqKey, {
      state: "pending",
      deadline: Date.now() + d.answerTimeoutMs,
      amount: invoice.total_amount,
      chat_id: String(chat.id),
      charge_id: chargeId,
      charge: JSON.stringify(charge),
      txn: JSON.stringify({ id: chargeId, amount: invoice.total_amount, date, source: partner }),
      user: JSON.stringify(user),
      chat: JSON.stringify(chatJson(chat)),
      payload: invoice.payload,
    })
    .pexpire(pcqKey, QUERY_LIFETIME_MS)
    .hset(keys.users(botId), String(user.id), JSON.stringify(user))
    .exec();

  const { key: waitKey, answered } = await d.waiters.wait(botId, queryId, d.answerTimeoutMs);
  const appended = await appendPaymentUpdate(d, botId, "pre_checkout_query", {
    id: queryId,
    from: user,
    currency: invoice.currency,
    total_amount: invoice.total_amount,
    invoice_payload: invoice.payload,
  });
  // A bot that excluded pre_checkout_query from allowed_updates can never answer: expire now.
  if (appended.outcome === "dropped") d.waiters.wakeLocal(waitKey);
  await answered;

  const [state, settledCharge, errorMessage] = await redis.spSettlePreCheckout(pcqKey);
  const result: PaymentResult =
    state === "paid"
      ? { status: "paid", telegram_payment_charge_id: settledCharge }
      : state === "declined"
        ? { status: "declined", error_message: errorMessage }
        : { status: "expired" };
  d.onPayment(result.status);
  return success(result);
}

/** answerPreCheckoutQuery: once per query, within the deadline, on any replica. */
export async function answerPreCheckoutQuery(
  d: InvoiceDomain,
  botId: string,
  p: ParamsOf<"answerPreCheckoutQuery">,
): Promise<MethodOutcome> {
  const { redis } = d;
  const queryId = p.pre_checkout_query_id;
  // Ids are ours (digits only); anything else cannot name a query and must not shape a key.
  if (!/^\d{1,20}$/.test(queryId)) return failure(Errors.preCheckoutQueryInvalid());
  const answer = await redis.spAnswerPreCheckout(
    keys.preCheckout(botId, queryId),
    keys.charges(botId),
    keys.starLedger(botId),
    keys.starBalance(botId),
    keys.messageSeq(botId),
    p.ok ? "1" : "0",
    p.error_message ?? "",
  );
  if (answer[0] === "invalid") return failure(Errors.preCheckoutQueryInvalid());
  if (answer[0] === "paid") {
    const [, messageId, userJson, chatJsonText, payload, amount, chargeId] = answer as [string, number, string, string, string, string, string];
    // The payment's message is in the log before the payer hears "paid".
    await appendPaymentUpdate(d, botId, "message", {
      message_id: messageId,
      from: JSON.parse(userJson),
      chat: JSON.parse(chatJsonText),
      date: Math.floor(Date.now() / 1000),
      successful_payment: {
        currency: "XTR",
        total_amount: Number(amount),
        invoice_payload: payload,
        telegram_payment_charge_id: chargeId,
        provider_payment_charge_id: "",
      },
    });
  }
  await d.waiters.wake(redis, botId, queryId);
  return success(true);
}
