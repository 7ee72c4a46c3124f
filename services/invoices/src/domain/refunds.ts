import { appendThenDeliver, keys, kindArgs, logArgs, logKeys, type ParamsOf, ok } from "@starpost/shared";
import type { Outcome } from "../outcomes.ts";
import { moneyKeys } from "./ledger.ts";
import type { InvoiceDomain } from "./deps.ts";

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
  p: ParamsOf<"refundStarPayment">,
): Promise<Outcome<true, { outcome: (typeof REFUSALS)[keyof typeof REFUSALS] }>> {
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
  if (status !== "refunded") return { outcome: REFUSALS[status as keyof typeof REFUSALS] };
  return ok(true);
}
