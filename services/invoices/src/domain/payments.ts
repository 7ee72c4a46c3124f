import { randomBytes } from "node:crypto";
import { channels, chatJson, type Chat, keys, type LinkPaymentBody, type PaymentBody, ok } from "@starpost/shared";
import { findChat, saveChat, getBot } from "@starpost/runtime";
import { appendThenDeliver, kindArgs, logArgs, logKeys, updateKind } from "@starpost/update-log";
import { crashPoint } from "../crash-point.ts";
import type { Outcome } from "../outcomes.ts";
import { moneyKeys } from "./ledger.ts";
import { paymentJson } from "./payment-json.ts";
import { invoiceScripts } from "../lua/index.ts";
import type { InvoiceDomain } from "./deps.ts";
import { linkSlug, type LinkRecord } from "./invoice-link.ts";
import { asUser, privateChatOf } from "./people.ts";
import type { InvoiceRecord } from "./send-invoice.ts";
import type { AnswerPreCheckoutQueryParams } from "../params/invoices.ts";

/** A pre-checkout query lives 150 s, like the update that carries it. */
const QUERY_LIFETIME_MS = 150_000;
/** A payment with an idempotency_key (and its query) is remembered this long for repeats. */
export const IDEMPOTENCY_LIFETIME_MS = 86_400_000;

/** Query ids look like Telegram's: a decimal 63-bit number. */
const newQueryId = () => (randomBytes(8).readBigUInt64BE() >> 1n).toString();
export const newChargeId = () => `stxsp${randomBytes(24).toString("base64url")}`;

export type PaymentResult =
  | { status: "paid"; telegram_payment_charge_id: string }
  | { status: "declined" | "failed"; error_message: string }
  | { status: "expired" };

/** What a payment attempt answers; refusals known before the query is emitted are named. */
export type PaymentOutcome = Outcome<
  PaymentResult,
  { outcome: "stars_not_enough" | "already_subscribed" | "idempotency_key_reused" }
>;
type PayOutcome = PaymentOutcome | { outcome: "bot_not_found" | "chat_not_found" | "invoice_message_not_found" };
type PayLinkOutcome = PaymentOutcome | { outcome: "bot_not_found" | "invoice_link_not_found" };

/**
 * The query a payment emits and the fields stored with it: everything the answer and a later
 * refund write (charge, ledger entry parts, the messages' parts), so their Lua steps only assemble
 * it. Dates are the answer's (the bot's clock), so the answer's step stamps them.
 */
function paymentRecord(invoice: LinkRecord, chat: Chat, user: Record<string, unknown>, queryId: string, link: string) {
  const chargeId = newChargeId();
  const period = invoice.subscription_period;
  const partner = JSON.stringify({
    type: "user",
    transaction_type: "invoice_payment",
    user,
    invoice_payload: invoice.payload,
    ...(period ? { subscription_period: period } : {}),
  });
  const userJson = JSON.stringify(user);
  const chatJsonText = JSON.stringify(chatJson(chat));
  const paidHead = JSON.stringify({
    currency: "XTR",
    total_amount: invoice.total_amount,
    invoice_payload: invoice.payload,
  }).slice(0, -1);
  const messageQueue = updateKind("message")!.queueKey({ chat });
  const charge = {
    id: chargeId,
    status: "paid",
    user_id: String(user.id),
    chat_id: String(chat.id),
    amount: String(invoice.total_amount),
    payload: invoice.payload,
    queue: messageQueue,
    from_json: userJson,
    chat_json: chatJsonText,
    partner,
    refunded_payment: `${paidHead},"telegram_payment_charge_id":${JSON.stringify(chargeId)}}`,
  };
  const query = {
    id: queryId,
    from: user,
    currency: invoice.currency,
    total_amount: invoice.total_amount,
    invoice_payload: invoice.payload,
  };
  const fields = {
    amount: String(invoice.total_amount),
    chat_id: String(chat.id),
    user_id: String(user.id),
    charge_id: chargeId,
    charge: JSON.stringify(charge),
    partner,
    user: userJson,
    chat: chatJsonText,
    paid_head: paidHead,
    queue: messageQueue,
    period: String(period ?? 0),
    link,
  };
  return { query, fields };
}

/** What is being paid: the invoice, the chat its messages go to, and what makes a repeat the same payment. */
interface PaymentTarget {
  invoice: LinkRecord;
  chat: Chat;
  /** the link's slug ("" for an invoice message). */
  link: string;
  fingerprint: unknown[];
}

/**
 * `POST /platform/v1/bots/:botId/payments`: a user pays an invoice message. Emits the
 * pre_checkout_query and waits (≤ 10 s) for the bot's answer, which may reach any replica;
 * everything the answer needs — the charge and the ledger entry it will write — is stored with
 * the query, so the answering replica moves the money in one Lua step.
 */
export async function pay(d: InvoiceDomain, botId: string, body: PaymentBody): Promise<PayOutcome> {
  const { redis } = d;
  // One round trip for what the payment is about (the bot's keys share its slot); a chat named by
  // @username takes one more.
  const chatId = String(body.chat_id).startsWith("@") ? (await findChat(redis, botId, body.chat_id))?.id : body.chat_id;
  const replies = (await redis
    .pipeline()
    .exists(keys.bot(botId))
    .hget(keys.chats(botId), String(chatId ?? ""))
    .hget(keys.invoices(botId), `${chatId ?? ""}:${body.message_id}`)
    .exec())!;
  const failed = replies.find(([err]) => err);
  if (failed) throw failed[0]!; // a Redis error is a 500, never "not found"
  const [bot, chatJsonText, recordJson] = replies.map(([, v]) => v) as [number, string | null, string | null];
  if (!bot) return { outcome: "bot_not_found" };
  if (!chatJsonText) return { outcome: "chat_not_found" };
  if (!recordJson) return { outcome: "invoice_message_not_found" };
  const chat = JSON.parse(chatJsonText) as Chat;
  const invoice = JSON.parse(recordJson) as InvoiceRecord;
  return payTarget(
    d,
    botId,
    { invoice, chat, link: "", fingerprint: [String(chat.id), body.message_id, body.user.id] },
    body,
  );
}

/**
 * `POST /platform/v1/bots/:botId/invoice_links/pay`: a user pays an invoice link, in the private
 * chat with the bot, with the same lifecycle as an invoice message. A subscription link is paid
 * once per subscriber whose subscription has not ended.
 */
export async function payLink(d: InvoiceDomain, botId: string, body: LinkPaymentBody): Promise<PayLinkOutcome> {
  const { redis } = d;
  if (!(await getBot(redis, botId))) return { outcome: "bot_not_found" };
  const slug = linkSlug(body.link);
  const recordJson = slug === undefined ? null : await redis.hget(keys.invoiceLinks(botId), slug);
  if (!recordJson) return { outcome: "invoice_link_not_found" };
  const invoice = JSON.parse(recordJson) as LinkRecord;
  const user = body.user;
  let chat = await findChat(redis, botId, user.id);
  if (!chat) {
    chat = privateChatOf(user);
    await saveChat(redis, botId, chat);
  }
  return payTarget(d, botId, { invoice, chat, link: slug!, fingerprint: ["link", slug, user.id] }, body);
}

async function payTarget(
  d: InvoiceDomain,
  botId: string,
  t: PaymentTarget,
  body: { user: PaymentBody["user"]; idempotency_key?: string },
): Promise<PaymentOutcome> {
  const { redis } = d;
  const key = body.idempotency_key;
  const user = asUser(body.user);
  let queryId = newQueryId();
  const { query, fields } = paymentRecord(t.invoice, t.chat, user, queryId, t.link);
  const userJson = fields.user;

  const fingerprint = JSON.stringify(t.fingerprint);
  let waiting = await d.waiters.wait(botId, queryId, d.answerTimeoutMs);
  const recorded = await appendThenDeliver(
    d,
    botId,
    (redis) =>
      invoiceScripts.recordPreCheckout(
        redis,
        {
          log: logKeys(botId),
          query: keys.preCheckout(botId, queryId),
          users: keys.users(botId),
          idempotency: keys.paymentKey(botId, key ?? ""),
          stars: keys.userStars(botId),
          subscribers: keys.subscribers(botId),
        },
        {
          log: logArgs(botId),
          kind: kindArgs("pre_checkout_query"),
          queue: updateKind("pre_checkout_query")!.queueKey(query),
          update: JSON.stringify(query),
          lifetime: key === undefined ? QUERY_LIFETIME_MS : IDEMPOTENCY_LIFETIME_MS,
          answerTimeout: d.answerTimeoutMs,
          userId: String(user.id),
          user: userJson,
          idempotent: key === undefined ? "0" : "1",
          queryId,
          fingerprint,
          amount: t.invoice.total_amount,
          subscriber: t.invoice.subscription_period ? `${t.link}:${user.id}` : "",
          fields: Object.entries(fields).flat(),
        },
      ),
    (r) => r.outcome === "new" && r.webhook,
  );
  const { outcome } = recorded;
  if (outcome === "stars_not_enough" || outcome === "already_subscribed") {
    d.waiters.wakeLocal(botId, queryId);
    return { outcome };
  }
  if (recorded.outcome === "repeat") {
    d.waiters.wakeLocal(botId, queryId);
    if (!recorded.sameRequest) return { outcome: "idempotency_key_reused" };
    // The first attempt's query: wait for its answer (or its deadline) like the first attempt.
    queryId = recorded.queryId;
    waiting = await d.waiters.wait(botId, queryId, d.answerTimeoutMs);
    const [state, deadline] = await redis.hmget(keys.preCheckout(botId, queryId), "state", "deadline");
    if (state !== "pending" || Number(deadline) <= Date.now()) d.waiters.wakeLocal(botId, queryId);
  } else {
    // A bot that excluded pre_checkout_query from allowed_updates can never answer: expire now.
    if (!recorded.appended) d.waiters.wakeLocal(botId, queryId);
  }
  // The answer's message tells how it ended; without it (the deadline, a repeat woken at once, a
  // closing process) one step settles: a query still pending expires.
  const told = toldOutcome((await waiting.answered)?.detail);
  const {
    state,
    chargeId: settledCharge,
    errorMessage,
  } = told ?? (await invoiceScripts.settlePreCheckout(redis, { query: keys.preCheckout(botId, queryId) }, {}));
  if (outcome === "repeat" && state === "missing") return ok({ status: "expired" });
  const result: PaymentResult =
    state === "paid"
      ? { status: "paid", telegram_payment_charge_id: settledCharge }
      : state === "declined" || state === "failed"
        ? { status: state, error_message: errorMessage }
        : { status: "expired" };
  if (outcome !== "repeat") d.onPayment(result.status);
  return ok(result);
}

/** How an answered query ended, from its answer message's detail (see channels.preCheckoutAnswered). */
function toldOutcome(detail: string | undefined) {
  const space = detail?.indexOf(" ") ?? -1;
  if (detail === undefined || space < 0) return undefined;
  const [state, rest] = [detail.slice(0, space), detail.slice(space + 1)];
  if (state === "paid") return { state, chargeId: rest, errorMessage: "" };
  if (state === "declined" || state === "failed") return { state, chargeId: "", errorMessage: rest };
  return undefined;
}

/**
 * answerPreCheckoutQuery: once per query, within the deadline, on any replica. The money, the
 * successful_payment message and the message that wakes the waiting payment move in one Lua step;
 * the drain job that follows is resumed by the reconciler if this process dies.
 */
export async function answerPreCheckoutQuery(
  d: InvoiceDomain,
  botId: string,
  p: AnswerPreCheckoutQueryParams,
): Promise<Outcome<true, { outcome: "pre_checkout_query_invalid" }>> {
  const queryId = p.pre_checkout_query_id;
  // Ids are ours (digits only); anything else cannot name a query and must not shape a key.
  if (!/^\d{1,20}$/.test(queryId)) return { outcome: "pre_checkout_query_invalid" };
  crashPoint("answer-pre-checkout:before-script");
  const { answer, detail } = await appendThenDeliver(
    d,
    botId,
    async (redis) => {
      const reply = await invoiceScripts.answerPreCheckout(
        redis,
        {
          log: logKeys(botId),
          query: keys.preCheckout(botId, queryId),
          ...moneyKeys(botId),
          subscriptions: keys.subscriptions(botId),
          subscribers: keys.subscribers(botId),
          due: keys.subscriptionsDue(botId),
          clock: keys.clockOffset(botId),
        },
        {
          log: logArgs(botId),
          kind: kindArgs("message"),
          ok: p.ok ? "1" : "0",
          errorMessage: p.error_message ?? "",
          ...paymentJson.paid,
          answered: channels.preCheckoutAnswered.name(botId),
          announce: channels.preCheckoutAnswered.encode({ botId, id: queryId }),
        },
      );
      crashPoint("answer-pre-checkout:after-script");
      return reply;
    },
    (reply) => reply.answer === "paid" && reply.webhook,
  );
  if (answer === "invalid") return { outcome: "pre_checkout_query_invalid" };
  // At once here; other replicas hear the step's message.
  d.waiters.wakeLocal(botId, queryId, answer === "declined" ? `declined ${p.error_message ?? ""}` : detail);
  return ok(true);
}
