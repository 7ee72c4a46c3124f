import type { FastifyInstance } from "fastify";
import type { Redis } from "ioredis";
import {
  encodeWakeMessage,
  addFault,
  botKeys,
  clearFaults,
  Errors,
  FaultBody,
  keys,
  listFaults,
  parseWith,
  readRequests,
  scripts,
  REQUEST_LOG_SIZE,
  RequestsQuery,
  sendError,
  sendOutcome,
  success,
  isBotId,
  ok,
} from "@starpost/shared";
import { answer } from "../outcomes.ts";

type BotParams = { Params: { botId: string } };

/** `DELETE /platform/v1/bots/:botId`: the bot and all its data in one step, then its global index entries. */
export async function deleteBot(redis: Redis, botId: string): Promise<boolean> {
  const username = await scripts.deleteBot(
    redis,
    { all: botKeys(botId) },
    { wakeChannel: keys.wakeChannel(botId), message: encodeWakeMessage({ kind: "webhook_deleted", botId }) },
  );
  if (username === undefined) return false;
  // Outside the bot's slot, so after the step: the token already fails, these only free the name.
  // A compare-and-set: the name (and its claim time) goes only while it still names this bot.
  await scripts.claimUsername(
    redis,
    { usernames: keys.botUsernames() },
    { name: username.toLowerCase(), id: "", expected: botId, lease: 0 },
  );
  await redis.srem(keys.webhookBotsOf(botId), botId);
  return true;
}

/** The operator's and the test's view of one bot: scripted faults, the request log, deletion. */
export function registerBotAdminRoutes(app: FastifyInstance, redis: Redis) {
  const exists = async (botId: string) => isBotId(botId) && (await redis.exists(keys.bot(botId))) === 1;

  app.delete<BotParams>("/internal/platform/bots/:botId", async (req, reply) => {
    if (!isBotId(req.params.botId) || !(await deleteBot(redis, req.params.botId)))
      return sendError(reply, Errors.botNotFound());
    return sendOutcome(reply, success(true));
  });

  app.post<BotParams>("/internal/platform/bots/:botId/faults", async (req, reply) => {
    if (!isBotId(req.params.botId)) return sendError(reply, Errors.botNotFound());
    const body = parseWith(FaultBody, req.body ?? {});
    if (!body.ok) return sendError(reply, body.error);
    const added = await addFault(redis, req.params.botId, body.params);
    return sendOutcome(reply, answer(added.outcome === "added" ? ok({ id: added.id }) : added));
  });

  app.get<BotParams>("/internal/platform/bots/:botId/faults", async (req, reply) => {
    if (!(await exists(req.params.botId))) return sendError(reply, Errors.botNotFound());
    return sendOutcome(reply, success({ faults: await listFaults(redis, req.params.botId) }));
  });

  app.delete<BotParams>("/internal/platform/bots/:botId/faults", async (req, reply) => {
    if (!(await exists(req.params.botId))) return sendError(reply, Errors.botNotFound());
    await clearFaults(redis, req.params.botId);
    return sendOutcome(reply, success(true));
  });

  app.get<BotParams>("/internal/platform/bots/:botId/requests", async (req, reply) => {
    if (!(await exists(req.params.botId))) return sendError(reply, Errors.botNotFound());
    const query = parseWith(RequestsQuery, req.query ?? {});
    if (!query.ok) return sendError(reply, query.error);
    return sendOutcome(
      reply,
      success({ requests: await readRequests(redis, req.params.botId, query.params.limit ?? REQUEST_LOG_SIZE) }),
    );
  });
}
