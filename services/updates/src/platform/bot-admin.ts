import type { Redis } from "ioredis";
import { botKeys, channels, keys, ok, type BotTagQuery, type FaultBody } from "@starpost/shared";
import { addFault, clearFaults, listFaults, readRequests, REQUEST_LOG_SIZE } from "@starpost/runtime";
import { type PlatformTable } from "@starpost/http";
import { updatesScripts } from "../lua/index.ts";
import { CLAIM_LEASE_MS } from "./bots.ts";

/**
 * `DELETE /platform/v1/bots/:botId`: the bot and all its data in one step, then its global index
 * entries. With `onlyTag`, only a bot created with that tag.
 */
export async function deleteBot(
  redis: Redis,
  botId: string,
  onlyTag = "",
): Promise<"deleted" | "missing" | "other_tag"> {
  const deleted = await updatesScripts.deleteBot(
    redis,
    { all: botKeys(botId) },
    {
      wakeChannel: channels.wake.name(botId),
      message: channels.wake.encode({ kind: "webhook_deleted", botId }),
      tag: onlyTag,
    },
  );
  if (typeof deleted === "string") return deleted;
  const { username, tag } = deleted;
  // Outside the bot's slot, so after the step: the token already fails, these only free the name.
  // (They are the round trips after the write that let the gateways' caches hear of it first.)
  // A compare-and-set: the name (and its claim time) goes only while it still names this bot.
  await updatesScripts.claimUsername(
    redis,
    { usernames: keys.botUsernames() },
    { name: username.toLowerCase(), id: "", expected: botId, lease: 0 },
  );
  await redis.srem(keys.webhookBotsOf(botId), botId);
  if (tag) await redis.hdel(keys.botTag(tag), botId);
  return "deleted";
}

/**
 * `DELETE /platform/v1/bots?tag=`: every bot created with the tag, each as `DELETE /bots/:botId`
 * deletes one (its own step, which checks the tag). An entry whose bot has another tag, or whose
 * bot never came (a creation that died, older than the creation lease), is dropped.
 */
async function deleteTagged(redis: Redis, tag: string): Promise<number> {
  const entries = Object.entries(await redis.hgetall(keys.botTag(tag)));
  const outcomes = await Promise.all(entries.map(([id]) => deleteBot(redis, id, tag)));
  const now = Date.now();
  const stale = entries
    .filter(
      ([, at], i) => outcomes[i] === "other_tag" || (outcomes[i] === "missing" && now - Number(at) > CLAIM_LEASE_MS),
    )
    .map(([id]) => id);
  if (stale.length > 0) await redis.hdel(keys.botTag(tag), ...stale);
  return outcomes.filter((o) => o === "deleted").length;
}

/** The operator's and the test's view of one bot: scripted faults, the request log, deletion. */
export const ADMIN_ROWS: PlatformTable<{ redis: Redis }> = {
  "DELETE /bots": {
    bot: "step",
    handler: async ({ redis }, { query }) => ok({ deleted: await deleteTagged(redis, (query as BotTagQuery).tag) }),
  },
  "DELETE /bots/:botId": {
    bot: "step",
    handler: async ({ redis }, { botId }) =>
      (await deleteBot(redis, botId)) === "deleted" ? ok(true) : { outcome: "bot_not_found" },
  },
  "POST /bots/:botId/faults": {
    bot: "step",
    handler: async ({ redis }, { botId, body }) => {
      const added = await addFault(redis, botId, body as FaultBody);
      return added.outcome === "added" ? ok({ id: added.id }) : added;
    },
  },
  "GET /bots/:botId/faults": {
    bot: "edge",
    handler: async ({ redis }, { botId }) => ok({ faults: await listFaults(redis, botId) }),
  },
  "DELETE /bots/:botId/faults": {
    bot: "edge",
    handler: async ({ redis }, { botId }) => (await clearFaults(redis, botId), ok(true)),
  },
  "GET /bots/:botId/requests": {
    bot: "edge",
    handler: async ({ redis }, { botId, query }) =>
      ok({ requests: await readRequests(redis, botId, (query as { limit?: number }).limit ?? REQUEST_LOG_SIZE) }),
  },
};
