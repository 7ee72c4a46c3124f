import type { Redis } from "ioredis";
import { ok, RawJson, type ActivityQuery, type ReplayBody } from "@starpost/shared";
import { ActivityWaits } from "@starpost/runtime";
import { type PlatformTable } from "@starpost/http";
import { replayUpdate, type UpdateSink } from "@starpost/update-log";

/** Entries an activity read returns when the caller gives no limit. */
const DEFAULT_LIMIT = 100;

/**
 * `GET /bots/:botId/activity`: the bot's activity log after `after` (default: from the oldest
 * kept), only `kinds` when given; with `wait_ms`, held until an entry of those kinds comes.
 * `POST /bots/:botId/replays`: an update the bot confirmed, delivered once more.
 */
export const ACTIVITY_ROWS: PlatformTable<UpdateSink & { redis: Redis; activityWaits: ActivityWaits }> = {
  "GET /bots/:botId/activity": {
    bot: "edge",
    handler: async ({ activityWaits }, { botId, query, signal }) => {
      const q = query as ActivityQuery;
      const read = { after: q.after ?? 0, limit: q.limit ?? DEFAULT_LIMIT, kinds: q.kinds };
      const { entries, position, trimmed } = await activityWaits.read(botId, read, q.wait_ms ?? 0, signal);
      return ok(new RawJson(`{"entries":[${entries.join(",")}],"position":${position},"trimmed":${trimmed}}`));
    },
  },
  "POST /bots/:botId/replays": {
    bot: "step",
    handler: async (sink, { botId, body }) => {
      const { update_id } = body as ReplayBody;
      const outcome = await replayUpdate(sink, botId, update_id);
      if (outcome === "replayed") return ok(true);
      if (outcome === "bot_not_found") return { outcome };
      return outcome === "pending"
        ? { outcome: "replay_pending", update_id }
        : { outcome: "replay_not_found", update_id };
    },
  },
};
