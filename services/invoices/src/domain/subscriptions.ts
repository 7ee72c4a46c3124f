import { keys, type ClockBody, type UserStarsBody, ok } from "@starpost/shared";
import { getBot } from "@starpost/runtime";
import { appendThenDeliver, kindArgs, logArgs, logKeys } from "@starpost/update-log";
import type { Outcome } from "../outcomes.ts";
import { moneyKeys } from "./ledger.ts";
import { paymentJson } from "./payment-json.ts";
import { invoiceScripts } from "../lua/index.ts";
import type { InvoiceDomain } from "./deps.ts";
import { newChargeId } from "./payments.ts";
import type { EditUserStarSubscriptionParams } from "../params/invoices.ts";

/** The edit step's refusals, by its reply. */
const EDIT_REFUSALS = {
  user_not_found: "user_not_found",
  not_found: "charge_not_found",
  expired: "subscription_expired",
} as const;

type BotNotFound = { outcome: "bot_not_found" };

/** editUserStarSubscription: cancels or re-enables a subscription named by its first charge id, in one Lua step. */
export async function editUserStarSubscription(
  d: InvoiceDomain,
  botId: string,
  p: EditUserStarSubscriptionParams,
): Promise<Outcome<true, { outcome: (typeof EDIT_REFUSALS)[keyof typeof EDIT_REFUSALS] }>> {
  const status = await invoiceScripts.editSubscription(
    d.redis,
    { users: keys.users(botId), subscriptions: keys.subscriptions(botId) },
    { chargeId: p.telegram_payment_charge_id, userId: String(p.user_id), cancel: p.is_canceled ? "1" : "0" },
  );
  if (status !== "ok") return { outcome: EDIT_REFUSALS[status] };
  return ok(true);
}

/**
 * `POST /platform/v1/bots/:botId/clock`: moves the bot's clock forward, then runs every renewal
 * that has come due, earliest first, each as one Lua step. Renewals left by a process that died
 * midway run at the next call (`advance_seconds: 0` runs just those).
 */
export async function advanceClock(
  d: InvoiceDomain,
  botId: string,
  body: ClockBody,
): Promise<Outcome<{ date: number; renewals: number; ended: number }, BotNotFound>> {
  const { redis } = d;
  if (!(await getBot(redis, botId))) return { outcome: "bot_not_found" };
  await redis.incrby(keys.clockOffset(botId), body.advance_seconds);
  // One delivery for the whole run: each renewal's step appends, the drain is asked for once.
  const { date, renewals, ended } = await appendThenDeliver(
    d,
    botId,
    async (redis) => {
      // The last epoch a renewal opened: an earlier one was closed by a drain that had its job.
      const run = { date: 0, renewals: 0, ended: 0, drain: undefined as string | undefined };
      for (;;) {
        const renewal = await invoiceScripts.renewSubscription(
          redis,
          {
            log: logKeys(botId),
            ...moneyKeys(botId),
            subscriptions: keys.subscriptions(botId),
            due: keys.subscriptionsDue(botId),
            clock: keys.clockOffset(botId),
            subscribers: keys.subscribers(botId),
            invoices: keys.invoices(botId),
          },
          { log: logArgs(botId), kind: kindArgs("message"), chargeId: newChargeId(), ...paymentJson.renewed },
        );
        if (renewal.status === "none") return { ...run, date: renewal.clock };
        if (renewal.status === "ended") run.ended++;
        else {
          run.renewals++;
          run.drain = renewal.drain ?? run.drain;
        }
      }
    },
    (run) => run.drain,
  );
  return ok({ date, renewals, ended });
}

/** `PUT /platform/v1/bots/:botId/users/:userId/stars`: a finite balance for the user, or unlimited (null). */
export async function setUserStars(
  d: InvoiceDomain,
  botId: string,
  userId: string,
  body: UserStarsBody,
): Promise<Outcome<{ amount: number | null }, BotNotFound>> {
  if (!(await getBot(d.redis, botId))) return { outcome: "bot_not_found" };
  if (body.amount === null) await d.redis.hdel(keys.userStars(botId), userId);
  else await d.redis.hset(keys.userStars(botId), userId, body.amount);
  return ok({ amount: body.amount });
}
