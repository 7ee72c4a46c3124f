import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { Errors, PLATFORM_ROUTES, secretMatcher, sendError, type ServiceClient } from "@starpost/shared";
import { platformOpenApi } from "../openapi.ts";
import { readPlatformBody } from "./body.ts";

/**
 * The platform API (`/platform/v1/*`, bearer PLATFORM_TOKEN): the gateway checks the token and
 * forwards each route of PLATFORM_ROUTES to the service that owns it. Its OpenAPI description is
 * public at /platform/v1/openapi.json.
 */
export function registerPlatformApi(app: FastifyInstance, deps: { services: ServiceClient; platformToken: string }) {
  const authorized = secretMatcher(`Bearer ${deps.platformToken}`);
  const openApi = JSON.stringify(platformOpenApi());
  app.get("/platform/v1/openapi.json", async (_req, reply) => reply.type("application/json").send(openApi));

  for (const route of PLATFORM_ROUTES) {
    app.route({
      method: route.method,
      url: `/platform/v1${route.url}`,
      handler: async (req: FastifyRequest, reply: FastifyReply) => {
        if (!authorized(req.headers.authorization)) return sendError(reply, Errors.unauthorized());
        // The query string goes along (history reads and the request log take theirs).
        const path = req.url.slice("/platform/v1".length);
        const body = readPlatformBody(req);
        const answer = await deps.services.platform(route.service, route.method, path, body, reply.raw);
        return reply.code(answer.status).headers(answer.headers).type("application/json").send(answer.body);
      },
    });
  }
}
