import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { abortOnClose, Errors, secretMatches, sendError, type ServiceClient } from "@starpost/shared";
import { readPlatformBody } from "./body.ts";

/**
 * The platform API (`/platform/v1/*`, bearer PLATFORM_TOKEN): the gateway checks the token and
 * forwards each route to the service that owns it.
 */
const ROUTES: { method: "GET" | "POST" | "PUT" | "DELETE"; url: string; service: "updates" | "invoices" }[] = [
  { method: "POST", url: "/bots", service: "updates" },
  { method: "DELETE", url: "/bots/:botId", service: "updates" },
  { method: "POST", url: "/bots/:botId/token", service: "updates" },
  { method: "PUT", url: "/bots/:botId/chats/:chatId", service: "updates" },
  { method: "POST", url: "/bots/:botId/updates", service: "updates" },
  { method: "POST", url: "/bots/:botId/payments", service: "invoices" },
  { method: "POST", url: "/bots/:botId/invoice_links/pay", service: "invoices" },
  { method: "POST", url: "/bots/:botId/clock", service: "invoices" },
  { method: "PUT", url: "/bots/:botId/users/:userId/stars", service: "invoices" },
  { method: "POST", url: "/bots/:botId/chats/:chatId/messages", service: "invoices" },
  { method: "GET", url: "/bots/:botId/chats/:chatId/messages", service: "invoices" },
  { method: "POST", url: "/bots/:botId/chats/:chatId/callback_queries", service: "invoices" },
  { method: "POST", url: "/bots/:botId/faults", service: "updates" },
  { method: "GET", url: "/bots/:botId/faults", service: "updates" },
  { method: "DELETE", url: "/bots/:botId/faults", service: "updates" },
  { method: "GET", url: "/bots/:botId/requests", service: "updates" },
];

export function registerPlatformApi(app: FastifyInstance, deps: { services: ServiceClient; platformToken: string }) {
  const authorized = (header: string | undefined) => secretMatches(header, `Bearer ${deps.platformToken}`);

  for (const route of ROUTES) {
    app.route({
      method: route.method,
      url: `/platform/v1${route.url}`,
      handler: async (req: FastifyRequest, reply: FastifyReply) => {
        if (!authorized(req.headers.authorization)) return sendError(reply, Errors.unauthorized());
        // The query string goes along (history reads and the request log take theirs).
        const path = req.url.slice("/platform/v1".length);
        const body = readPlatformBody(req);
        const answer = await deps.services.platform(route.service, route.method, path, body, abortOnClose(reply));
        return reply.code(answer.status).headers(answer.headers).type("application/json").send(answer.body);
      },
    });
  }
}
