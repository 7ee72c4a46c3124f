import type { Redis } from "ioredis";
import { ok, RawJson, type ActivityQuery } from "@starpost/shared";
import { ActivityWaits } from "@starpost/runtime";
import { type PlatformTable } from "@starpost/http";

/** Entries an activity read returns when the caller gives no limit. */
const DEFAULT_LIMIT = 100;

/**
 * `GET /bots/:botId/activity`: the bot's activity log after `after` (default: from the oldest
 * kept), only `kinds` when given; with `wait_ms`, held until an entry of those kinds comes.
 */
export const ACTIVITY_ROWS: PlatformTable<{ redis: Redis; activityWaits: ActivityWaits }> = {
  "GET /bots/:botId/activity": {
    bot: "edge",
    handler: async ({ activityWaits }, { botId, query, signal }) => {
      const q = query as ActivityQuery;
      const read = { after: q.after ?? "0", limit: q.limit ?? DEFAULT_LIMIT, kinds: q.kinds };
      const { entries, position } = await activityWaits.read(botId, read, q.wait_ms ?? 0, signal);
      return ok(new RawJson(`{"entries":[${entries.join(",")}],"position":"${position}"}`));
    },
  },
};
