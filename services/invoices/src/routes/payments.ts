import type { FastifyInstance } from "fastify";
import { Errors, parseWith, PaymentBody, sendError, sendOutcome } from "@starpost/shared";
import type { InvoiceDomain } from "../domain/deps.ts";
import { pay } from "../domain/payments.ts";

const isId = (s: string) => /^\d{1,16}$/.test(s);

/** `POST /platform/v1/bots/:botId/payments`, forwarded by the gateway after its bearer check. */
export function registerPaymentRoute(app: FastifyInstance, d: InvoiceDomain) {
  app.post<{ Params: { botId: string } }>("/internal/platform/bots/:botId/payments", async (req, reply) => {
    if (!isId(req.params.botId)) return sendError(reply, Errors.botNotFound());
    const body = parseWith(PaymentBody, req.body ?? {});
    if (!body.ok) return sendError(reply, body.error);
    return sendOutcome(reply, await pay(d, req.params.botId, body.params));
  });
}
