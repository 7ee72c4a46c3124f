import { keys, ok } from "@starpost/shared";
import { type PlatformTable } from "@starpost/http";
import type { InvoiceDomain } from "../domain/deps.ts";

/** A subscription as stored (renew-subscription.lua, answer-pre-checkout.lua), the fields shown. */
interface StoredSubscription {
  id: string;
  link: string;
  user_id: string;
  amount: number;
  period: number;
  expires: number;
  state: string;
  renewals?: number;
  canceled?: boolean;
}

/** What the console (and any operator's tool) reads of the Stars side: the clock, subscriptions, users and their Stars. */
export const VIEW_ROWS: PlatformTable<InvoiceDomain> = {
  "GET /bots/:botId/clock": {
    bot: "edge",
    handler: async (d, { botId }) => {
      // Redis's clock, as the steps that renew read it, plus the bot's offset.
      const [[seconds], offset] = await Promise.all([d.redis.time(), d.redis.get(keys.clockOffset(botId))]);
      return ok({ date: Number(seconds) + Number(offset ?? 0) });
    },
  },
  "GET /bots/:botId/subscriptions": {
    bot: "edge",
    handler: async (d, { botId }) => {
      const stored = (await d.redis.hvals(keys.subscriptions(botId))).map((j) => JSON.parse(j) as StoredSubscription);
      const subscriptions = stored
        .map((s) => ({
          id: s.id,
          link: s.link,
          user_id: Number(s.user_id),
          amount: s.amount,
          period: s.period,
          state: s.state,
          expiration_date: s.expires,
          renewals: s.renewals ?? 0,
          canceled: s.canceled === true,
        }))
        .sort((a, b) => a.user_id - b.user_id || a.expiration_date - b.expiration_date);
      return ok({ subscriptions });
    },
  },
  "GET /bots/:botId/users": {
    bot: "edge",
    handler: async (d, { botId }) => {
      const [users, stars] = await Promise.all([
        d.redis.hgetall(keys.users(botId)),
        d.redis.hgetall(keys.userStars(botId)),
      ]);
      const list = Object.entries(users)
        .map(([id, json]) => ({
          ...(JSON.parse(json) as { id: number }),
          stars: id in stars ? Number(stars[id]) : null,
        }))
        .sort((a, b) => a.id - b.id);
      return ok({ users: list });
    },
  },
};
