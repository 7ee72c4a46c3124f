import type { FastifyInstance } from "fastify";
import { Errors, getBot, parseWith, PaymentBody, sendError, sendOutcome, StarsQuery, success } from "@starpost/shared";
import type { InvoiceDomain } from "../domain/deps.ts";
import { getMyStarBalance, getStarTransactions } from "../domain/ledger.ts";
import { pay } from "../domain/payments.ts";

const isId = (s: string) => /^\d{1,16}$/.test(s);

/** `POST …/payments` and `GET …/stars`, forwarded by the gateway after its bearer check. */
export function registerPaymentRoute(app: FastifyInstance, d: InvoiceDomain) {
  app.post<{ Params: { botId: string } }>("/internal/platform/bots/:botId/payments", async (req, reply) => {
    if (!isId(req.params.botId)) return sendError(reply, Errors.botNotFound());
    const body = parseWith(PaymentBody, req.body ?? {});
    if (!body.ok) return sendError(reply, body.error);
    return sendOutcome(reply, await pay(d, req.params.botId, body.params));
  });

  /** The balance and the ledger as getMyStarBalance and getStarTransactions show them to the bot. */
  app.get<{ Params: { botId: string } }>("/internal/platform/bots/:botId/stars", async (req, reply) => {
    const { botId } = req.params;
    if (!isId(botId) || !(await getBot(d.redis, botId))) return sendError(reply, Errors.botNotFound());
    const query = parseWith(StarsQuery, req.query ?? {});
    if (!query.ok) return sendError(reply, query.error);
    const [balance, ledger] = await Promise.all([
      getMyStarBalance(d, botId),
      getStarTransactions(d, botId, { offset: query.params.offset ?? 0, limit: query.params.limit ?? 100 }),
    ]);
    if (!balance.ok) return sendOutcome(reply, balance);
    if (!ledger.ok) return sendOutcome(reply, ledger);
    return sendOutcome(reply, success({ balance: balance.result, ...(ledger.result as object) }));
  });
}
