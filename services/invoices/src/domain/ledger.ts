import { keys, ok } from "@starpost/shared";
import type { Outcome } from "../outcomes.ts";
import type { InvoiceDomain } from "./deps.ts";
import type { GetStarTransactionsParams } from "../params/invoices.ts";

/**
 * The keys every step that moves Stars writes, in its scripts' KEYS order: charges, ledger,
 * balance, message_id counters, messages, users' Stars.
 */
export const moneyKeys = (botId: string) => ({
  charges: keys.charges(botId),
  ledger: keys.starLedger(botId),
  balance: keys.starBalance(botId),
  messageSeq: keys.messageSeq(botId),
  messages: keys.messages(botId),
  userStars: keys.userStars(botId),
});

/** getStarTransactions: the ledger oldest first, `offset`/`limit` already clamped by the schema. */
export async function getStarTransactions(
  d: InvoiceDomain,
  botId: string,
  p: GetStarTransactionsParams,
): Promise<Outcome<{ transactions: unknown[] }, never>> {
  const rows = await d.redis.lrange(keys.starLedger(botId), p.offset, p.offset + p.limit - 1);
  return ok({ transactions: rows.map((r) => JSON.parse(r) as unknown) });
}

/** getMyStarBalance: a StarAmount; starpost has no fractional Stars, so no nanostar_amount. */
export async function getMyStarBalance(d: InvoiceDomain, botId: string): Promise<Outcome<{ amount: number }, never>> {
  const amount = await d.redis.get(keys.starBalance(botId));
  return ok({ amount: Number(amount ?? 0) });
}
