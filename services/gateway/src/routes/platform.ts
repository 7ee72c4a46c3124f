import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { Errors, PLATFORM_ROUTES } from "@starpost/shared";
import { secretMatcher, sendError, type ServiceClient } from "@starpost/http";
import { platformOpenApi } from "../openapi.ts";
import { readPlatformBody } from "./body.ts";

/**
 * The platform API (`/platform/v1/*`, bearer PLATFORM_TOKEN): the gateway checks the token and
 * forwards each route of PLATFORM_ROUTES to the service that owns it. Its OpenAPI description is
 * public at /platform/v1/openapi.json.
 */
export function registerPlatformApi(app: FastifyInstance, deps: { services: ServiceClient; platformToken: string }) {
  const matches = secretMatcher(deps.platformToken);
  // The scheme is case-insensitive and may be followed by several spaces (RFC 9110 §11.1, §11.4).
  const authorized = (header: string | undefined) => {
    const m = header === undefined ? null : /^bearer +(\S+) *$/i.exec(header);
    return matches(m ? m[1] : undefined);
  };
  const openApi = JSON.stringify(platformOpenApi());
  app.get("/platform/v1/openapi.json", async (_req, reply) => reply.type("application/json").send(openApi));

  for (const route of PLATFORM_ROUTES) {
    app.route({
      method: route.method,
      url: `/platform/v1${route.url}`,
      handler: async (req: FastifyRequest, reply: FastifyReply) => {
        if (!authorized(req.headers.authorization)) return sendError(reply, Errors.unauthorized());
        // The path forwarded is the route's own, filled with the decoded parameters, never the
        // caller's spelling of it: a call carrying the internal token goes only where the route
        // table says. The query string goes along (history reads and the request log take theirs).
        const params = req.params as Record<string, string>;
        const query = req.url.indexOf("?");
        const path =
          route.url.replace(/:(\w+)/g, (_, name: string) => encodeURIComponent(params[name]!)) +
          (query < 0 ? "" : req.url.slice(query));
        const body = readPlatformBody(req);
        const answer = await deps.services.platform(route.service, route.method, path, body, reply.raw);
        return reply.code(answer.status).headers(answer.headers).type("application/json").send(answer.body);
      },
    });
  }
}
