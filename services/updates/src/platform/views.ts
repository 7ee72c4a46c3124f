import type { Redis } from "ioredis";
import { keys, ok, type BotListQuery, type Chat } from "@starpost/shared";
import { maskUserinfo, STATUS } from "@starpost/runtime";
import { type PlatformTable } from "@starpost/http";
import { getWebhookInfo } from "../webhook/info.ts";

/** A bot as the listing shows it: id, username, first name and its tag when it has one. */
async function listed(redis: Redis, id: string) {
  const [username, firstName, tag] = await redis.hmget(keys.bot(id), "username", "first_name", "tag");
  if (!username) return undefined;
  return { id: Number(id), username, first_name: firstName ?? username, ...(tag ? { tag } : {}) };
}

/** What the console (and any operator's tool) reads: the bots, a bot's chats, its webhook. */
export const VIEW_ROWS: PlatformTable<{ redis: Redis }> = {
  "GET /bots": {
    bot: "edge",
    handler: async ({ redis }, { query }) => {
      const { tag } = query as BotListQuery;
      const ids = tag
        ? await redis.hkeys(keys.botTag(tag))
        : Object.entries(await redis.hgetall(keys.botUsernames()))
            .filter(([name]) => !name.endsWith(":at"))
            .map(([, id]) => id);
      const bots = (await Promise.all(ids.map((id) => listed(redis, id)))).filter(
        (b): b is NonNullable<typeof b> => b !== undefined && (!tag || b.tag === tag),
      );
      bots.sort((a, b) => a.id - b.id);
      return ok({ bots });
    },
  },
  "GET /bots/:botId/chats": {
    bot: "edge",
    handler: async ({ redis }, { botId }) => {
      const chats = Object.values(await redis.hgetall(keys.chats(botId))).map((json) => JSON.parse(json) as Chat);
      chats.sort((a, b) => a.id - b.id);
      return ok({ chats });
    },
  },
  "GET /bots/:botId/webhook": {
    bot: "edge",
    handler: async ({ redis }, { botId }) => {
      const [info, status] = await Promise.all([
        getWebhookInfo({ redis }, botId),
        redis.hgetall(keys.webhookStatus(botId)),
      ]);
      const next = nextRetryMs(status);
      // The bot's own getWebhookInfo answers the URL as set (as the official server does); this
      // view, read with the platform token, does not show its password.
      const shown = { ...info.result, url: maskUserinfo(String(info.result.url)) };
      return ok(next === undefined ? shown : { ...shown, next_retry_date: Math.ceil(next / 1000) });
    },
  },
};

/** The earliest wake-up of the updates waiting for a retry (`r:<id>` -> "<fails>:<delay>:<wakeup ms>"). */
function nextRetryMs(status: Record<string, string>): number | undefined {
  const wakeups = Object.entries(status)
    .filter(([field, value]) => field.startsWith(STATUS.retryPrefix) && value)
    .map(([, value]) => Number(value.split(":")[2]))
    .filter((n) => Number.isFinite(n));
  return wakeups.length ? Math.min(...wakeups) : undefined;
}
