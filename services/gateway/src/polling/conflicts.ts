import type { Redis } from "ioredis";
import { setTimeout as sleep } from "node:timers/promises";
import { keys } from "@starpost/shared";

/** A 409 by what refused or ended the poll (its text is the registry's, chosen at the edge). */
export type Conflict = { outcome: "webhook_active" | "set_webhook" | "other_get_updates" };

/** Repeated 409s to one bot are at least this far apart, as in the official server. */
export const CONFLICT_SPACING_MS = 3000;

/**
 * A 409 for the bot: at once when no other 409 went to it in the last 3 s (which starts a new
 * 3 s window), otherwise after 3 s. This stops a client retrying in a tight loop from hammering
 * the service; the window is in Redis so it holds across replicas.
 */
export async function spacedConflict(redis: Redis, botId: string, conflict: Conflict): Promise<Conflict> {
  const first = await redis.set(keys.lastConflict(botId), "1", "PX", CONFLICT_SPACING_MS, "NX");
  if (first !== "OK") await sleep(CONFLICT_SPACING_MS);
  return conflict;
}
