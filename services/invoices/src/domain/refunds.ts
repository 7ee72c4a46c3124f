import {
  Errors,
  failure,
  keys,
  kindArgs,
  logArgs,
  logKeys,
  success,
  type MethodOutcome,
  type ParamsOf,
} from "@starpost/shared";
import { signalWebhook } from "./append.ts";
import { moneyKeys } from "./ledger.ts";
import { paymentJson } from "./payment-json.ts";
import { invoiceScripts } from "../lua/index.ts";
import type { InvoiceDomain } from "./deps.ts";

const REFUSALS = {
  user_not_found: Errors.userNotFound,
  not_found: Errors.chargeNotFound,
  already_refunded: Errors.chargeAlreadyRefunded,
} as const;

/**
 * refundStarPayment: validated and done by one Lua step (the charge, the ledger, the balance and
 * the refunded_payment message together), so concurrent refunds of one charge refund it once.
 */
export async function refundStarPayment(
  d: InvoiceDomain,
  botId: string,
  p: ParamsOf<"refundStarPayment">,
): Promise<MethodOutcome> {
  const { status, webhook } = await invoiceScripts.refundStarPayment(
    d.redis,
    { log: logKeys(botId), users: keys.users(botId), ...moneyKeys(botId), clock: keys.clockOffset(botId) },
    {
      log: logArgs(botId),
      kind: kindArgs("message"),
      chargeId: p.telegram_payment_charge_id,
      userId: String(p.user_id),
      ...paymentJson.refunded,
    },
  );
  if (status !== "refunded") return failure(REFUSALS[status]());
  await signalWebhook(d, botId, webhook);
  return success(true);
}
