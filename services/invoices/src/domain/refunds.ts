import {
  appendThenDeliver,
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
import { moneyKeys } from "./ledger.ts";
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
  const [status] = await appendThenDeliver(
    d,
    botId,
    (redis) =>
      redis.spRefundStarPayment(
        ...logKeys(botId),
        keys.users(botId),
        ...moneyKeys(botId),
        keys.clockOffset(botId),
        ...logArgs(botId),
        ...kindArgs("message"),
        p.telegram_payment_charge_id,
        String(p.user_id),
      ),
    ([, pending]) => pending === 1,
  );
  if (status !== "refunded") return failure(REFUSALS[status as keyof typeof REFUSALS]());
  return success(true);
}
