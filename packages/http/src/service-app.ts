import { createHash, timingSafeEqual } from "node:crypto";
import type { FastifyInstance, FastifyReply } from "fastify";
import type { z } from "zod";
import {
  Errors,
  type BotApiError,
  errorReply,
  okEnvelope,
  RawJson,
  rawOkEnvelope,
  type Answer,
  findMethod,
  type MethodName,
  type MethodOf,
  type ServiceName,
  parseWith,
  READY_TIMEOUT_DEFAULT_MS,
} from "@starpost/shared";
import { type BotRecord, type Registry, countIfRefused, isBotId, refusedWrites } from "@starpost/runtime";
import { INTERNAL_TOKEN_HEADER } from "./internal-calls.ts";

/** What a method handler gets: the bot the gateway authenticated (its public record, as sent with the call) and its validated params. */
export interface MethodContext<P> {
  /** `bot.id` */
  botId: string;
  bot: BotRecord;
  params: P;
}

/**
 * A row of a service's method table: the parameters' schema (its output is what the handler
 * gets), one line for docs/methods.md, and the handler, given the service's dependencies `D` and
 * the call (with `X`, what else that service gives its handlers: the gateway, an abort signal).
 */
export interface MethodRow<D, P = any, X = object> {
  params: z.ZodType<P>;
  summary: string;
  handler: (deps: D, ctx: MethodContext<P> & X) => Promise<Answer>;
}

/** A service's method table: one row for each method the contract gives it. */
export type MethodTable<S extends ServiceName, D, X = object> = { [M in MethodOf<S>]: MethodRow<D, any, X> };

/** Builds the rows of a service whose dependencies are `D`, each handler typed by its schema. */
export const rowsOf =
  <D, X = object>() =>
  <P>(row: MethodRow<D, P, X>): MethodRow<D, P, X> =>
    row;

export function sendError(reply: FastifyReply, err: BotApiError) {
  const { status, headers, body } = errorReply(err);
  return reply.code(status).headers(headers).send(body);
}

export function sendOutcome(reply: FastifyReply, outcome: Answer) {
  if (outcome.outcome === "error") return sendError(reply, outcome.error);
  if (outcome.result instanceof RawJson) {
    return reply.code(200).type("application/json").send(rawOkEnvelope(outcome.result, outcome.description));
  }
  return reply.code(200).send(okEnvelope(outcome.result, outcome.description));
}

/**
 * A check of a presented secret against the expected one in constant time, whatever either's
 * length: their SHA-256 digests are compared (the expected one made once).
 */
export function secretMatcher(expected: string): (given: unknown) => boolean {
  const digest = (text: string) => createHash("sha256").update(text).digest();
  const b = digest(expected);
  return (given) => typeof given === "string" && timingSafeEqual(digest(given), b);
}

/** The routes a service answers without the internal token: liveness, readiness and metrics. */
const OPEN_ROUTES = new Set(["/healthz", "/readyz", "/metrics"]);

/**
 * A service's listeners serve the gateway and the workers only: every request needs INTERNAL_TOKEN
 * but the ops routes above. The check is on the route the router matched (`routeOptions.url`),
 * not on the raw URL, so no spelling of a path (percent-encoded, dot segments, repeated slashes)
 * reaches a route the check did not see; a request that matches no route needs the token too.
 * (This hook and the metrics hook below run on every call: callback hooks, not async ones, spare
 * fastify a promise and a microtask turn each.)
 */
export function guardInternal(app: FastifyInstance, internalToken: string) {
  if (internalToken.length < 16) throw new Error("the internal token must be at least 16 characters");
  const matches = secretMatcher(internalToken);
  app.addHook("onRequest", (req, reply, done) => {
    if (OPEN_ROUTES.has(req.routeOptions.url ?? "") || matches(req.headers[INTERNAL_TOKEN_HEADER])) return done();
    void sendError(reply, Errors.unauthorized());
  });
}

/** `POST /internal/call/:method`: validate with the service's row, run its handler. */
export function registerMethodRoute<D>(
  app: FastifyInstance,
  table: Partial<Record<MethodName, MethodRow<D>>>,
  deps: D,
) {
  app.post<{ Params: { method: string }; Body: { bot?: unknown; params?: unknown } }>(
    "/internal/call/:method",
    async (req, reply) => {
      const method = findMethod(req.params.method);
      const row = method && table[method];
      if (!row) return sendError(reply, Errors.methodNotFound());
      const { bot, params } = req.body ?? {};
      if (!isBotRecord(bot) || typeof params !== "object" || params === null) {
        return sendError(reply, Errors.badRequestBody());
      }
      const parsed = parseWith(row.params, params);
      if (parsed.outcome === "error") return sendError(reply, parsed.error);
      return sendOutcome(reply, await row.handler(deps, { botId: bot.id, bot, params: parsed.result }));
    },
  );
}

/** The bot record an internal call carries (what `botFrom` needs), checked for shape only. */
function isBotRecord(v: unknown): v is BotRecord {
  if (typeof v !== "object" || v === null) return false;
  const { id, username, first_name } = v as Record<string, unknown>;
  return (
    typeof id === "string" &&
    isBotId(id) &&
    typeof username === "string" &&
    username !== "" &&
    typeof first_name === "string"
  );
}

/** An AbortSignal that fires when the client goes away before the answer is sent. */
export function abortOnClose(reply: FastifyReply): AbortSignal {
  const controller = new AbortController();
  const res = reply.raw;
  // The caller may have left already, while the call was being checked (a client aborting its
  // poll at once): "close" has fired then and will not again, so a listener alone would hold a
  // poll for nobody until its timeout.
  if (res.destroyed && !res.writableFinished) {
    controller.abort();
    return controller.signal;
  }
  // A response's "close" fires once: after it is sent, or when the connection dies first.
  res.once("close", () => {
    if (!res.writableFinished) controller.abort();
  });
  return controller.signal;
}

/**
 * A call's abort signal (abortOnClose), made only when first read: most calls never wait, so most
 * never need one. A base class, not a `get signal()` in each call's object literal: V8 keeps a
 * literal's getter in an accessor pair it allocates in the old generation, which holds the getter's
 * closure, and through it the call's reply and request, through every scavenge until a full
 * collection (the updates service copied megabytes per scavenge, 4-7 ms pauses).
 */
export class CallSignal {
  #signal: AbortSignal | undefined;
  readonly #reply: FastifyReply;
  constructor(reply: FastifyReply) {
    this.#reply = reply;
  }
  get signal(): AbortSignal {
    return (this.#signal ??= abortOnClose(this.#reply));
  }
}

export interface OpsOptions {
  registry: Registry;
  /** true when every dependency (Redis, downstream services) answers. */
  ready: () => Promise<boolean>;
  /** READY_TIMEOUT_MS (default: the constant below). */
  timeoutMs?: number | undefined;
}

/**
 * How long /readyz waits for `ready` before answering 503 (READY_TIMEOUT_MS). A Redis that is
 * frozen, or down and being reconnected to, never answers the ping: /readyz says so within a
 * second, as a load balancer or `npm start` expects; a healthy Redis answers a ping in well under
 * a millisecond, so even a loaded machine stays far inside it. A gateway asks the services'
 * /readyz at the same time, with the same limit.
 */
export const READY_TIMEOUT_MS = READY_TIMEOUT_DEFAULT_MS;

/** /healthz (alive), /readyz (dependencies reachable), /metrics (Prometheus text), request metrics. */
export function registerOps(app: FastifyInstance, { registry, ready, timeoutMs = READY_TIMEOUT_MS }: OpsOptions) {
  const requests = registry.counter("starpost_http_requests_total", "HTTP requests answered, by route and status", [
    "route",
    "status",
  ]);
  const latency = registry.histogram("starpost_http_request_duration_seconds", "HTTP request latency, by route", [
    "route",
  ]);
  app.addHook("onResponse", (req, reply, done) => {
    const route = req.routeOptions.url ?? "unmatched";
    requests.inc({ route, status: reply.statusCode });
    latency.observe({ route }, reply.elapsedTime / 1000);
    req.log.debug({ req, status: reply.statusCode, ms: reply.elapsedTime }, "request");
    done();
  });
  refusedWrites(registry); // exported from the start, at 0
  // After the error handler answered: a call whose own step Redis refused for memory.
  app.addHook("onError", (_req, _reply, err, done) => {
    countIfRefused(registry, err, "step");
    done();
  });
  app.get("/healthz", async () => ({ ok: true }));
  app.get("/readyz", async (_req, reply) => {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<false>((resolve) => (timer = setTimeout(resolve, timeoutMs, false)));
    const ok = await Promise.race([ready().catch(() => false), late]).finally(() => clearTimeout(timer));
    return reply.code(ok ? 200 : 503).send({ ok });
  });
  app.get("/metrics", async (_req, reply) => reply.type(registry.contentType).send(await registry.render()));
}
