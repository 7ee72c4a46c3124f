import { fill, jsonTemplate } from "../lua/template.ts";

/**
 * The Bot API JSON of the money steps, built once here and completed by the scripts
 * (lua/template.ts). Their marks: message_id, date (the bot's clock), expires (a subscription's
 * next expiration), charge_id (JSON string), amount; and the parts stored with the payment when
 * it started: from (the payer's User), chat, partner (the TransactionPartner), head (the opening
 * members of successful_payment: currency, total_amount, invoice_payload).
 */

/** A message in the payer's chat carrying `kind` (successful_payment, refunded_payment), from the payer. */
const serviceMessage = (kind: string) =>
  jsonTemplate({
    message_id: fill("message_id"),
    from: fill("from"),
    chat: fill("chat"),
    date: fill("date"),
    [kind]: fill(kind),
  }).json;

/** A StarTransaction (JsonStarTransaction, Client.cpp at 01a3679, line 5884): incoming (`source`) or outgoing (`receiver`). */
const transaction = (partner: "source" | "receiver") =>
  jsonTemplate({ id: fill("charge_id"), date: fill("date"), [partner]: fill("partner"), amount: fill("amount") }).json;

/** `head` plus the given members, closing the object. */
const afterHead = (members: Record<string, unknown>) => `${fill("head").json},${jsonTemplate(members).json.slice(1)}`;

/** successful_payment (JsonSuccessfulPaymentBot, line 3038): one-time, a subscription's first payment, or a renewal. */
const successfulPayment = (subscription?: "first" | "renewal") =>
  afterHead({
    telegram_payment_charge_id: fill("charge_id"),
    provider_payment_charge_id: "",
    is_recurring: subscription ? true : undefined,
    is_first_recurring: subscription === "first" ? true : undefined,
    subscription_expiration_date: subscription ? fill("expires") : undefined,
  });

export const paymentJson = {
  /** answer-pre-checkout.lua */
  paid: {
    message: serviceMessage("successful_payment"),
    payment: successfulPayment(),
    subscribed: successfulPayment("first"),
    transaction: transaction("source"),
  },
  /** renew-subscription.lua; `refunded` is the refunded_payment a later refund of the new charge sends. */
  renewed: {
    message: serviceMessage("successful_payment"),
    payment: successfulPayment("renewal"),
    transaction: transaction("source"),
    refunded: afterHead({ telegram_payment_charge_id: fill("charge_id") }),
  },
  /** refund-star-payment.lua (refunded_payment itself is stored with the charge). */
  refunded: { message: serviceMessage("refunded_payment"), transaction: transaction("receiver") },
};
