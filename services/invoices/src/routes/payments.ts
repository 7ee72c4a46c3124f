import type { FastifyInstance } from "fastify";
import { ClockBody, Errors, LinkPaymentBody, parseWith, PaymentBody, sendError, sendOutcome, UserStarsBody } from "@starpost/shared";
import type { InvoiceDomain } from "../domain/deps.ts";
import { pay, payLink } from "../domain/payments.ts";
import { advanceClock, setUserStars } from "../domain/subscriptions.ts";

const isId = (s: string) => /^\d{1,16}$/.test(s);

/** The payment routes of the platform API, forwarded by the gateway after its bearer check. */
export function registerPaymentRoute(app: FastifyInstance, d: InvoiceDomain) {
  app.post<{ Params: { botId: string } }>("/internal/platform/bots/:botId/payments", async (req, reply) => {
    if (!isId(req.params.botId)) return sendError(reply, Errors.botNotFound());
    const body = parseWith(PaymentBody, req.body ?? {});
    if (!body.ok) return sendError(reply, body.error);
    return sendOutcome(reply, await pay(d, req.params.botId, body.params));
  });
  app.post<{ Params: { botId: string } }>("/internal/platform/bots/:botId/invoice_links/pay", async (req, reply) => {
    if (!isId(req.params.botId)) return sendError(reply, Errors.botNotFound());
    const body = parseWith(LinkPaymentBody, req.body ?? {});
    if (!body.ok) return sendError(reply, body.error);
    return sendOutcome(reply, await payLink(d, req.params.botId, body.params));
  });
  app.post<{ Params: { botId: string } }>("/internal/platform/bots/:botId/clock", async (req, reply) => {
    if (!isId(req.params.botId)) return sendError(reply, Errors.botNotFound());
    const body = parseWith(ClockBody, req.body ?? {});
    if (!body.ok) return sendError(reply, body.error);
    return sendOutcome(reply, await advanceClock(d, req.params.botId, body.params));
  });
  app.put<{ Params: { botId: string; userId: string } }>("/internal/platform/bots/:botId/users/:userId/stars", async (req, reply) => {
    if (!isId(req.params.botId)) return sendError(reply, Errors.botNotFound());
    if (!isId(req.params.userId) || Number(req.params.userId) <= 0) return sendError(reply, Errors.userIdInvalid());
    const body = parseWith(UserStarsBody, req.body ?? {});
    if (!body.ok) return sendError(reply, body.error);
    return sendOutcome(reply, await setUserStars(d, req.params.botId, req.params.userId, body.params));
  });
}
