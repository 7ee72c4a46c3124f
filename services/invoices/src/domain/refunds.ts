import { keys, ok } from "@starpost/shared";
import { appendThenDeliver, kindArgs, logArgs, logKeys } from "@starpost/update-log";
import type { Outcome } from "../outcomes.ts";
import { moneyKeys } from "./ledger.ts";
import { paymentJson } from "./payment-json.ts";
import { invoiceScripts } from "../lua/index.ts";
import type { InvoiceDomain } from "./deps.ts";
import type { RefundStarPaymentParams } from "../params/invoices.ts";

/** The refund step's refusals, by its reply. */
const REFUSALS = {
  user_not_found: "user_not_found",
  not_found: "charge_not_found",
  already_refunded: "charge_already_refunded",
} as const;

/**
 * refundStarPayment: validated and done by one Lua step (the charge, the ledger, the balance and
 * the refunded_payment message together), so concurrent refunds of one charge refund it once.
 */
export async function refundStarPayment(
  d: InvoiceDomain,
  botId: string,
  p: RefundStarPaymentParams,
): Promise<Outcome<true, { outcome: (typeof REFUSALS)[keyof typeof REFUSALS] }>> {
  const { status } = await appendThenDeliver(
    d,
    botId,
    (redis) =>
      invoiceScripts.refundStarPayment(
        redis,
        {
          log: logKeys(botId),
          users: keys.users(botId),
          ...moneyKeys(botId),
          clock: keys.clockOffset(botId),
          invoices: keys.invoices(botId),
        },
        {
          log: logArgs(botId),
          kind: kindArgs("message"),
          chargeId: p.telegram_payment_charge_id,
          userId: String(p.user_id),
          ...paymentJson.refunded,
        },
      ),
    (reply) => reply.drain,
  );
  if (status !== "refunded") return { outcome: REFUSALS[status] };
  return ok(true);
}
