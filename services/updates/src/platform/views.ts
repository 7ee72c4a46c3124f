import type { FastifyInstance } from "fastify";
import type { Redis } from "ioredis";
import {
  Errors,
  getBot,
  isBotId,
  keys,
  maskUserinfo,
  sendError,
  sendOutcome,
  STATUS,
  success,
  type BotRecord,
  type Chat,
} from "@starpost/shared";
import { getWebhookInfo } from "../webhook/info.ts";

type BotParams = { Params: { botId: string } };

/** What the console (and any operator's tool) reads: the bots, a bot's chats, its webhook. */
export function registerViewRoutes(app: FastifyInstance, redis: Redis) {
  const exists = async (botId: string) => isBotId(botId) && (await redis.exists(keys.bot(botId))) === 1;

  app.get("/internal/platform/bots", async (_req, reply) => {
    const ids = Object.values(await redis.hgetall(keys.botUsernames()));
    const bots = (await Promise.all(ids.map((id) => getBot(redis, id)))).filter((b): b is BotRecord => b !== undefined);
    bots.sort((a, b) => Number(a.id) - Number(b.id));
    return sendOutcome(reply, success({ bots }));
  });

  app.get<BotParams>("/internal/platform/bots/:botId/chats", async (req, reply) => {
    if (!(await exists(req.params.botId))) return sendError(reply, Errors.botNotFound());
    const chats = Object.values(await redis.hgetall(keys.chats(req.params.botId))).map(
      (json) => JSON.parse(json) as Chat,
    );
    chats.sort((a, b) => a.id - b.id);
    return sendOutcome(reply, success({ chats }));
  });

  app.get<BotParams>("/internal/platform/bots/:botId/webhook", async (req, reply) => {
    if (!(await exists(req.params.botId))) return sendError(reply, Errors.botNotFound());
    const [info, status] = await Promise.all([
      getWebhookInfo({ redis }, req.params.botId),
      redis.hgetall(keys.webhookStatus(req.params.botId)),
    ]);
    const next = nextRetryMs(status);
    // The bot's own getWebhookInfo answers the URL as set (as the official server does); this view,
    // read with the platform token, does not show its password.
    const shown = { ...info.result, url: maskUserinfo(String(info.result.url)) };
    const result = next === undefined ? shown : { ...shown, next_retry_date: Math.ceil(next / 1000) };
    return sendOutcome(reply, success(result));
  });
}

/** The earliest wake-up of the updates waiting for a retry (`r:<id>` -> "<fails>:<delay>:<wakeup ms>"). */
function nextRetryMs(status: Record<string, string>): number | undefined {
  const wakeups = Object.entries(status)
    .filter(([field, value]) => field.startsWith(STATUS.retryPrefix) && value)
    .map(([, value]) => Number(value.split(":")[2]))
    .filter((n) => Number.isFinite(n));
  return wakeups.length ? Math.min(...wakeups) : undefined;
}
