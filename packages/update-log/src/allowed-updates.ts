import type { Redis } from "ioredis";
import { fromJson, INVALID_JSON, keys } from "@starpost/shared";
import { DEFAULT_ALLOWED, normaliseAllowedUpdates, UPDATE_KINDS } from "./update-kinds.ts";

/**
 * allowed_updates as getUpdates and setWebhook take it: absent, unparsable or not an array keeps
 * the previous setting (`undefined`); an array is normalised, and one that names no known kind
 * means the default set (`null`).
 */
export function readAllowedUpdatesParam(value: unknown): string[] | null | undefined {
  if (value === undefined || value === null) return undefined;
  const parsed = fromJson(value);
  if (parsed === INVALID_JSON || !Array.isArray(parsed)) return undefined;
  return normaliseAllowedUpdates(parsed) ?? null;
}

/** The bot's setting in Update field order; `undefined` while it is the default. */
export async function loadAllowedUpdates(redis: Redis, botId: string): Promise<string[] | undefined> {
  const members = new Set(await redis.smembers(keys.allowedUpdates(botId)));
  if (members.size === 0) return undefined;
  const list = UPDATE_KINDS.filter((k) => members.has(k.name)).map((k) => k.name);
  const isDefault = list.length === DEFAULT_ALLOWED.length && list.every((k, i) => k === DEFAULT_ALLOWED[i]);
  return isDefault ? undefined : list;
}
