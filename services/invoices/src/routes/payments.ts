import {
  Errors,
  isChatId,
  ok,
  type ClockBody,
  type LinkPaymentBody,
  type PaymentBody,
  type UserStarsBody,
} from "@starpost/shared";
import { type PlatformTable } from "@starpost/http";
import type { InvoiceDomain } from "../domain/deps.ts";
import { getMyStarBalance, getStarTransactions } from "../domain/ledger.ts";
import { pay, payLink } from "../domain/payments.ts";
import { advanceClock, setUserStars } from "../domain/subscriptions.ts";

/** The payment, subscription and Stars routes of the platform API (their steps read the bot themselves). */
export const PAYMENT_ROWS: PlatformTable<InvoiceDomain> = {
  "POST /bots/:botId/payments": {
    bot: "step",
    handler: async (d, { botId, body }) => pay(d, botId, body as PaymentBody),
  },
  "POST /bots/:botId/invoice_links/pay": {
    bot: "step",
    handler: async (d, { botId, body }) => payLink(d, botId, body as LinkPaymentBody),
  },
  "POST /bots/:botId/clock": {
    bot: "step",
    handler: async (d, { botId, body }) => advanceClock(d, botId, body as ClockBody),
  },
  "PUT /bots/:botId/users/:userId/stars": {
    bot: "step",
    params: ({ userId }) => (isChatId(userId) && Number(userId) > 0 ? undefined : Errors.userIdInvalid()),
    handler: async (d, { botId, params, body }) => setUserStars(d, botId, params.userId!, body as UserStarsBody),
  },
  /** The balance and the ledger as getMyStarBalance and getStarTransactions show them to the bot. */
  "GET /bots/:botId/stars": {
    bot: "edge",
    handler: async (d, { botId, query }) => {
      const q = query as { offset?: number; limit?: number };
      const [balance, ledger] = await Promise.all([
        getMyStarBalance(d, botId),
        getStarTransactions(d, botId, { offset: q.offset ?? 0, limit: q.limit ?? 100 }),
      ]);
      return ok({ balance: balance.result, ...ledger.result });
    },
  },
};
