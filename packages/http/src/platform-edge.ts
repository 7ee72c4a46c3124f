import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { Redis } from "ioredis";
import {
  type BotApiError,
  Errors,
  type Answer,
  type Outcome,
  ok,
  parseWith,
  PLATFORM_ROUTES,
  type PlatformRoute,
  keys,
} from "@starpost/shared";
import { isBotId } from "@starpost/runtime";
import { CallSignal, sendError, sendOutcome } from "./service-app.ts";

/** What a platform route's handler gets: its path parameters, its parsed body and query. */
export interface PlatformCall<B = any, Q = any> {
  /** the bot of a `/bots/:botId…` route ("" for `/bots`). */
  botId: string;
  params: Record<string, string>;
  body: B;
  query: Q;
  /** aborted when the caller goes away before the answer (made when first read). */
  readonly signal: AbortSignal;
}

/**
 * A service's row for one route of PLATFORM_ROUTES (keyed `"<METHOD> <url>"`): where the bot's
 * existence is checked (`edge`: here, once, before anything else is read; `step`: by the route's own
 * Redis step, which answers bot_not_found itself, so the call costs no extra read), a check of its
 * other path parameters, and the handler, whose domain outcome the service's `answer` maps.
 */
export interface PlatformRow<D> {
  bot: "edge" | "step";
  /** the body goes to the handler as sent: its step reads it, with errors of its own. */
  rawBody?: true;
  params?: (params: Record<string, string>) => BotApiError | undefined;
  handler: (deps: D, call: PlatformCall) => Promise<Outcome<unknown, { outcome: string }>>;
}

export type PlatformTable<D> = Record<string, PlatformRow<D>>;

export interface PlatformEdgeOptions<D> {
  redis: Redis;
  deps: D;
  /** the service's map from domain outcomes to the Bot API answer (its outcomes.ts). */
  answer: (outcome: never) => Answer;
}

/**
 * The one edge of the platform routes a service owns: each row's route comes from PLATFORM_ROUTES
 * (mounted under `/internal/platform`), its bot id is checked by the one rule (`isBotId`), the bot's
 * existence once (at the edge or in the step), its other path parameters, its body and query with
 * the table's schemas, in that order; then the handler runs and its outcome is mapped once.
 */
export function registerPlatformRows<D>(app: FastifyInstance, table: PlatformTable<D>, opts: PlatformEdgeOptions<D>) {
  for (const [key, row] of Object.entries(table)) {
    const route = PLATFORM_ROUTES.find((r) => `${r.method} ${r.url}` === key);
    if (!route) throw new Error(`${key} is not in PLATFORM_ROUTES (packages/shared/src/params/platform-routes.ts)`);
    app.route({
      method: route.method,
      url: `/internal/platform${route.url}`,
      handler: (req, reply) => runRow(route, row, opts, req, reply),
    });
  }
}

async function runRow<D>(
  route: PlatformRoute,
  row: PlatformRow<D>,
  { redis, deps, answer }: PlatformEdgeOptions<D>,
  req: FastifyRequest,
  reply: FastifyReply,
) {
  const params = req.params as Record<string, string>;
  const botId = params.botId ?? "";
  if (route.url.includes(":botId")) {
    if (!isBotId(botId)) return sendError(reply, Errors.botNotFound());
    if (row.bot === "edge" && (await redis.exists(keys.bot(botId))) === 0)
      return sendError(reply, Errors.botNotFound());
  }
  const bad = row.params?.(params);
  if (bad) return sendError(reply, bad);
  const body = route.body && !row.rawBody ? parseWith(route.body, req.body ?? {}) : ok(req.body);
  if (body.outcome === "error") return sendError(reply, body.error);
  const query = route.query ? parseWith(route.query, req.query ?? {}) : ok(undefined);
  if (query.outcome === "error") return sendError(reply, query.error);
  const call = new Call(reply, botId, params, body.result, query.result);
  return sendOutcome(reply, answer((await row.handler(deps, call)) as never));
}

class Call extends CallSignal implements PlatformCall {
  constructor(
    reply: FastifyReply,
    readonly botId: string,
    readonly params: Record<string, string>,
    readonly body: unknown,
    readonly query: unknown,
  ) {
    super(reply);
  }
}
