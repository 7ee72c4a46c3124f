import { randomBytes } from "node:crypto";
import {
  channels,
  chatJson,
  IDEMPOTENCY_LIFETIME_MS,
  keys,
  type LinkPaymentBody,
  type PaymentBody,
  ok,
  RawJson,
} from "@starpost/shared";
import { findChat, saveChat, getBot } from "@starpost/runtime";
import { appendThenDeliver, kindArgs, logArgs, logKeys, updateKind } from "@starpost/update-log";
import { crashPoint } from "../crash-point.ts";
import type { Outcome } from "../outcomes.ts";
import { moneyKeys } from "./ledger.ts";
import { paymentJson } from "./payment-json.ts";
import { fill, jsonTemplate } from "../lua/template.ts";
import { invoiceScripts } from "../lua/index.ts";
import type { InvoiceDomain } from "./deps.ts";
import { linkSlug, type LinkRecord } from "./invoice-link.ts";
import { asUser, privateChatOf } from "./people.ts";
import type { AnswerPreCheckoutQueryParams } from "../params/invoices.ts";

/** A pre-checkout query lives 150 s, like the update that carries it. */
const QUERY_LIFETIME_MS = 150_000;

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
/** A link's payment reads nothing in its step (the chat and price are known), but shares its outcomes. */
type PayLinkOutcome = PayOutcome | { outcome: "invoice_link_not_found" };

/**
 * What a payment charges, as JSON text: known (an invoice link, read first) or marks that the
 * record step fills from the invoice message it reads itself (record-pre-checkout.lua).
 */
interface Priced {
  /** invoice_payload as a JSON string, `payloadText` as stored (the plain string). */
  payload: RawJson;
  payloadText: string;
  amount: RawJson;
  period?: number;
}

const pricedBy = (invoice: LinkRecord): Priced => ({
  payload: new RawJson(JSON.stringify(invoice.payload)),
  payloadText: invoice.payload,
  amount: new RawJson(String(invoice.total_amount)),
  period: invoice.subscription_period,
});

/** The invoice message's price, filled in by the record step (its marks: see record-pre-checkout.lua). */
const PRICED_IN_STEP: Priced = {
  payload: fill("payload"),
  payloadText: fill("payload_text").json,
  amount: fill("amount"),
};

/**
 * The query a payment emits and the fields stored with it: everything the answer and a later
 * refund write (the charge's parts, ledger entry parts, the messages' parts), so their Lua steps
 * only assemble it. Dates are the answer's (the bot's clock), so the answer's step stamps them.
 * `chat`: the chat's id and its Chat JSON text (or the mark the step fills).
 */
function paymentRecord(
  priced: Priced,
  chat: { id: string; json: string },
  user: Record<string, unknown>,
  queryId: string,
  link: string,
) {
  const chargeId = newChargeId();
  const { payload, amount, period } = priced;
  const userJson = new RawJson(JSON.stringify(user));
  const partner = jsonTemplate({
    transaction_type: "invoice_payment",
    type: "user",
    user: userJson,
    invoice_payload: payload,
    subscription_period: period || undefined,
  }).json;
  const paidHead = jsonTemplate({ currency: "XTR", total_amount: amount, invoice_payload: payload }).json.slice(0, -1);
  const query = jsonTemplate({
    id: queryId,
    from: userJson,
    currency: "XTR",
    total_amount: amount,
    invoice_payload: payload,
  }).json;
  const fields = {
    amount: amount.json,
    chat_id: chat.id,
    user_id: String(user.id),
    charge_id: chargeId,
    payload: priced.payloadText,
    partner,
    user: userJson.json,
    chat: chat.json,
    paid_head: paidHead,
    queue: updateKind("message")!.queueKey({ chat: { id: chat.id } }),
    period: String(period ?? 0),
    link,
  };
  return { query, fields };
}

/**
 * What is being paid: its price, the chat its messages go to (known, or named by id for the step
 * to read with the invoice message: `lookup`), and what makes a repeat the same payment.
 */
interface PaymentTarget {
  priced: Priced;
  chat: { id: string; json: string };
  /** the invoice message the step reads (with the bot and the chat), for a payment of one. */
  lookup?: { chatId: string; messageId: number };
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
  // The step reads the bot, the chat and the invoice message itself; a chat named by @username is
  // looked up first.
  const named = String(body.chat_id);
  const chatId = named.startsWith("@") ? (await findChat(d.redis, botId, named))?.id : named;
  if (chatId === undefined)
    return (await getBot(d.redis, botId)) ? { outcome: "chat_not_found" } : { outcome: "bot_not_found" };
  const id = String(chatId);
  return payTarget(
    d,
    botId,
    {
      priced: PRICED_IN_STEP,
      chat: { id, json: fill("chat").json },
      lookup: { chatId: id, messageId: body.message_id },
      link: "",
      fingerprint: [id, body.message_id, body.user.id],
    },
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
  return payTarget(
    d,
    botId,
    {
      priced: pricedBy(invoice),
      chat: { id: String(chat.id), json: JSON.stringify(chatJson(chat)) },
      link: slug!,
      fingerprint: ["link", slug, user.id],
    },
    body,
  );
}

/** The invoice message's field in the bot's messages hash ("" when paying a link). */
const invoiceField = (t: PaymentTarget) => (t.lookup ? `${t.lookup.chatId}:${t.lookup.messageId}` : "");

async function payTarget(
  d: InvoiceDomain,
  botId: string,
  t: PaymentTarget,
  body: { user: PaymentBody["user"]; idempotency_key?: string },
): Promise<PayOutcome> {
  const { redis } = d;
  const key = body.idempotency_key;
  const user = asUser(body.user);
  let queryId = newQueryId();
  const { query, fields } = paymentRecord(t.priced, t.chat, user, queryId, t.link);
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
          bot: keys.bot(botId),
          chats: keys.chats(botId),
          invoices: keys.invoices(botId),
        },
        {
          log: logArgs(botId),
          kind: kindArgs("pre_checkout_query"),
          queue: updateKind("pre_checkout_query")!.queueKey({ from: user }),
          update: query,
          lifetime: key === undefined ? QUERY_LIFETIME_MS : IDEMPOTENCY_LIFETIME_MS,
          answerTimeout: d.answerTimeoutMs,
          userId: String(user.id),
          user: userJson,
          idempotent: key === undefined ? "0" : "1",
          queryId,
          fingerprint,
          amount: t.priced.amount.json,
          subscriber: t.priced.period ? `${t.link}:${user.id}` : "",
          chatId: t.lookup?.chatId ?? "",
          invoiceField: invoiceField(t),
          // The invoice message paid ("<chat>:<message id>", "" for a link): its `:paid` count grows with each payment.
          fields: Object.entries({ ...fields, invoice_message: invoiceField(t) }).flat(),
        },
      ),
    (r) => (r.outcome === "new" ? r.drain : undefined),
  );
  const { outcome } = recorded;
  if (recorded.outcome === "missing") {
    d.waiters.wakeLocal(botId, queryId);
    return { outcome: recorded.what };
  }
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
): Promise<Outcome<true, { outcome: "query_id_invalid" }>> {
  const queryId = p.pre_checkout_query_id;
  // Ids are ours (digits only); anything else cannot name a query and must not shape a key.
  if (!/^\d{1,20}$/.test(queryId)) return { outcome: "query_id_invalid" };
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
          invoices: keys.invoices(botId),
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
    (reply) => reply.drain,
  );
  if (answer === "invalid") return { outcome: "query_id_invalid" };
  // At once here; other replicas hear the step's message.
  d.waiters.wakeLocal(botId, queryId, answer === "declined" ? `declined ${p.error_message ?? ""}` : detail);
  return ok(true);
}
