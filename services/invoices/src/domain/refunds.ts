import { Errors, failure, keys, success, type MethodOutcome, type ParamsOf } from "@starpost/shared";
import { appendPaymentUpdate } from "./append.ts";
import type { InvoiceDomain } from "./deps.ts";

/** A charge as stored in `keys.charges` (ids as strings: Lua reads this JSON too). */
interface Charge {
  id: string;
  status: "paid" | "refunded";
  user_id: string;
  chat_id: string;
  amount: string;
  payload: string;
  date: number;
  user: Record<string, unknown>;
  chat: Record<string, unknown>;
  refunded_at?: number;
}

/** refundStarPayment: once per charge; the Lua step decides under concurrency. */
export async function refundStarPayment(d: InvoiceDomain, botId: string, p: ParamsOf<"refundStarPayment">): Promise<MethodOutcome> {
  const { redis } = d;
  const userId = String(p.user_id);
  const [user, raw] = await Promise.all([
    redis.hexists(keys.users(botId), userId),
    redis.hget(keys.charges(botId), p.telegram_payment_charge_id),
  ]);
  if (!user) return failure(Errors.userNotFound());
  if (!raw) return failure(Errors.chargeNotFound());
  const charge = JSON.parse(raw) as Charge;
  if (charge.user_id !== userId) return failure(Errors.chargeNotFound());
  if (charge.status !== "paid") return failure(Errors.chargeAlreadyRefunded());

  const date = Math.floor(Date.now() / 1000);
  const amount = Number(charge.amount);
  const receiver = { type: "user", transaction_type: "invoice_payment", user: charge.user, invoice_payload: charge.payload };
  const [status, messageId] = await redis.spRefundStarPayment(
    keys.charges(botId),
    keys.starLedger(botId),
    keys.starBalance(botId),
    keys.messageSeq(botId),
    charge.id,
    userId,
    JSON.stringify({ ...charge, status: "refunded", refunded_at: date }),
    JSON.stringify({ id: charge.id, amount, date, receiver }),
  );
  if (status === "not_found") return failure(Errors.chargeNotFound());
  if (status === "already_refunded") return failure(Errors.chargeAlreadyRefunded());
  await appendPaymentUpdate(d, botId, "message", {
    message_id: Number(messageId),
    from: charge.user,
    chat: charge.chat,
    date,
    refunded_payment: {
      currency: "XTR",
      total_amount: amount,
      invoice_payload: charge.payload,
      telegram_payment_charge_id: charge.id,
    },
  });
  return success(true);
}
