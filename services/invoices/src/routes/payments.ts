import type { FastifyInstance } from "fastify";
import {
  ClockBody,
  Errors,
  getBot,
  isBotId,
  isChatId,
  LinkPaymentBody,
  parseWith,
  PaymentBody,
  sendError,
  sendOutcome,
  StarsQuery,
  success,
  UserStarsBody,
} from "@starpost/shared";
import type { InvoiceDomain } from "../domain/deps.ts";
import { getMyStarBalance, getStarTransactions } from "../domain/ledger.ts";
import { pay, payLink } from "../domain/payments.ts";
import { advanceClock, setUserStars } from "../domain/subscriptions.ts";
import { answer } from "../outcomes.ts";

/** The payment, subscription and Stars routes of the platform API, forwarded by the gateway after its bearer check. */
export function registerPaymentRoute(app: FastifyInstance, d: InvoiceDomain) {
  app.post<{ Params: { botId: string } }>("/internal/platform/bots/:botId/payments", async (req, reply) => {
    if (!isBotId(req.params.botId)) return sendError(reply, Errors.botNotFound());
    const body = parseWith(PaymentBody, req.body ?? {});
    if (!body.ok) return sendError(reply, body.error);
    return sendOutcome(reply, answer(await pay(d, req.params.botId, body.params)));
  });

  /** The balance and the ledger as getMyStarBalance and getStarTransactions show them to the bot. */
  app.get<{ Params: { botId: string } }>("/internal/platform/bots/:botId/stars", async (req, reply) => {
    const { botId } = req.params;
    if (!isBotId(botId) || !(await getBot(d.redis, botId))) return sendError(reply, Errors.botNotFound());
    const query = parseWith(StarsQuery, req.query ?? {});
    if (!query.ok) return sendError(reply, query.error);
    const [balance, ledger] = await Promise.all([
      getMyStarBalance(d, botId),
      getStarTransactions(d, botId, { offset: query.params.offset ?? 0, limit: query.params.limit ?? 100 }),
    ]);
    return sendOutcome(reply, success({ balance: balance.result, ...ledger.result }));
  });
  app.post<{ Params: { botId: string } }>("/internal/platform/bots/:botId/invoice_links/pay", async (req, reply) => {
    if (!isBotId(req.params.botId)) return sendError(reply, Errors.botNotFound());
    const body = parseWith(LinkPaymentBody, req.body ?? {});
    if (!body.ok) return sendError(reply, body.error);
    return sendOutcome(reply, answer(await payLink(d, req.params.botId, body.params)));
  });
  app.post<{ Params: { botId: string } }>("/internal/platform/bots/:botId/clock", async (req, reply) => {
    if (!isBotId(req.params.botId)) return sendError(reply, Errors.botNotFound());
    const body = parseWith(ClockBody, req.body ?? {});
    if (!body.ok) return sendError(reply, body.error);
    return sendOutcome(reply, answer(await advanceClock(d, req.params.botId, body.params)));
  });
  app.put<{ Params: { botId: string; userId: string } }>(
    "/internal/platform/bots/:botId/users/:userId/stars",
    async (req, reply) => {
      if (!isBotId(req.params.botId)) return sendError(reply, Errors.botNotFound());
      if (!isChatId(req.params.userId) || Number(req.params.userId) <= 0)
        return sendError(reply, Errors.userIdInvalid());
      const body = parseWith(UserStarsBody, req.body ?? {});
      if (!body.ok) return sendError(reply, body.error);
      return sendOutcome(reply, answer(await setUserStars(d, req.params.botId, req.params.userId, body.params)));
    },
  );
}
