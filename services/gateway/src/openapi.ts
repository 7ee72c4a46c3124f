import { z } from "zod";
import { CHAT_ID, PLATFORM_ROUTES, type PlatformRoute } from "@starpost/shared";
import { BOT_ID } from "@starpost/runtime";

/**
 * The OpenAPI 3.1 description of the platform API, built from the route table and the zod
 * schemas that validate each route (zod's JSON Schema output is draft 2020-12, OpenAPI 3.1's).
 */
export function platformOpenApi(routes: PlatformRoute[] = PLATFORM_ROUTES) {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const r of routes) {
    const path = `/platform/v1${r.url.replace(/:(\w+)/g, "{$1}")}`;
    (paths[path] ??= {})[r.method.toLowerCase()] = operation(r);
  }
  return {
    openapi: "3.1.0",
    info: {
      title: "starpost platform API",
      version: "1",
      description:
        "The operator and simulation side of starpost. Answers use the Bot API envelope: {ok: true, result} or {ok: false, error_code, description}.",
    },
    components: {
      securitySchemes: { platformToken: { type: "http", scheme: "bearer", description: "PLATFORM_TOKEN" } },
      schemas: {
        Error: {
          type: "object",
          properties: { ok: { const: false }, error_code: { type: "integer" }, description: { type: "string" } },
          required: ["ok", "error_code", "description"],
        },
      },
    },
    security: [{ platformToken: [] }],
    paths,
  };
}

function operation(r: PlatformRoute) {
  const pathParams = [...r.url.matchAll(/:(\w+)/g)].map(([, name]) => ({
    name,
    in: "path",
    required: true,
    schema: { type: "string", pattern: (name === "botId" ? BOT_ID : CHAT_ID).source },
  }));
  const queryParams = r.query ? queryParameters(r.query) : [];
  return {
    summary: r.summary,
    operationId: `${r.method.toLowerCase()}${r.url.replace(/:(\w+)/g, "By_$1").replace(/[/_](\w)/g, (_, c: string) => c.toUpperCase())}`,
    parameters: [...pathParams, ...queryParams],
    ...(r.body && {
      requestBody: { required: true, content: { "application/json": { schema: jsonSchema(r.body, "input") } } },
    }),
    responses: {
      200: {
        description: `{ok: true, result}: ${r.result}`,
        content: {
          "application/json": {
            schema: { type: "object", properties: { ok: { const: true }, result: {} }, required: ["ok", "result"] },
          },
        },
      },
      default: {
        description: "An error in the Bot API envelope",
        content: { "application/json": { schema: { $ref: "#/components/schemas/Error" } } },
      },
    },
  };
}

function jsonSchema(schema: z.ZodType, io: "input" | "output") {
  const { $schema: _drop, ...rest } = z.toJSONSchema(schema, { io, unrepresentable: "any" }) as Record<string, unknown>;
  return rest;
}

/** Query strings are read as their output types (the schemas turn digit strings into numbers). */
function queryParameters(schema: z.ZodType) {
  const s = jsonSchema(schema, "output") as { properties?: Record<string, object>; required?: string[] };
  return Object.entries(s.properties ?? {}).map(([name, prop]) => ({
    name,
    in: "query",
    required: s.required?.includes(name) ?? false,
    schema: prop,
  }));
}
