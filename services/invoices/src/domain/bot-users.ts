import type { Redis } from "ioredis";
import { botFrom, getBot } from "@starpost/shared";

/** How long a bot's User JSON is reused: bots cannot be renamed, only re-tokened. */
const TTL_MS = 60_000;

/**
 * The bot's User object as it appears in `Message.from`, cached per process so sendInvoice,
 * the hot path, needs a single Redis round trip.
 */
export class BotUsers {
  private readonly cache = new Map<string, { json: string; at: number }>();
  constructor(private readonly redis: Redis) {}

  async json(botId: string): Promise<string | undefined> {
    const hit = this.cache.get(botId);
    if (hit && Date.now() - hit.at < TTL_MS) return hit.json;
    const bot = await getBot(this.redis, botId);
    if (!bot) return undefined;
    const json = JSON.stringify(botFrom(bot));
    if (this.cache.size > 10_000) this.cache.clear();
    this.cache.set(botId, { json, at: Date.now() });
    return json;
  }
}
