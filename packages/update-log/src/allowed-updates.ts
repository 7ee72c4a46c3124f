import type { Redis } from "ioredis";
import { decodeJson, keys } from "@starpost/shared";
import { ALLOWED_UPDATE_NAMES, normaliseAllowedUpdates, UNLISTED_UPDATE_NAMES } from "./update-kinds.ts";

/**
 * allowed_updates as getUpdates and setWebhook take it (td's json_decode, then
 * get_allowed_update_types): absent, unparsable, not an array or holding a non-string keeps the
 * previous setting (`undefined`); an array is normalised, and one that names no known kind, or
 * names exactly the default set, means the default (`null`).
 */
export function readAllowedUpdatesParam(value: unknown): string[] | null | undefined {
  if (value === undefined || value === null || value === "") return undefined;
  const parsed = decodeJson(typeof value === "string" ? value : JSON.stringify(value));
  if (!Array.isArray(parsed)) return undefined;
  const list = normaliseAllowedUpdates(parsed);
  return list === "keep" ? undefined : (list ?? null);
}

/** The bot's setting as getWebhookInfo lists it (UpdateType order, custom kinds unlisted); `undefined` while it is the default. */
export async function loadAllowedUpdates(redis: Redis, botId: string): Promise<string[] | undefined> {
  const members = new Set(await redis.smembers(keys.allowedUpdates(botId)));
  if (members.size === 0) return undefined;
  return ALLOWED_UPDATE_NAMES.filter((n) => members.has(n) && !UNLISTED_UPDATE_NAMES.has(n));
}
