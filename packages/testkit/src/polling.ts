import type { Redis } from "ioredis";
import { keys } from "@starpost/shared";
import { http, userMessage, type Platform, type Reply } from "./bot-api.ts";
import { eventually } from "./wait.ts";

/** getUpdates as a raw GET with every parameter in the query string, the way most clients send it. */
export function getUpdates(
  baseUrl: string,
  token: string,
  params: Record<string, unknown> = {},
  signal?: AbortSignal,
): Promise<Reply> {
  const query = new URLSearchParams(
    Object.entries(params).map(([k, v]) => [k, typeof v === "string" ? v : JSON.stringify(v)]),
  ).toString();
  if (!signal) return http(baseUrl, "GET", `/bot${token}/getUpdates${query ? `?${query}` : ""}`);
  return fetch(`${baseUrl}/bot${token}/getUpdates?${query}`, { signal }).then(async (res) => ({
    status: res.status,
    headers: Object.fromEntries(res.headers),
    body: await res.json(),
  }));
}

/** Pushes `n` user messages to the bot, one platform call each, in order; returns their update ids. */
export async function pushMessages(platform: Platform, botId: number, n: number, chatId = 1001): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < n; i++) out.push(await push(platform, botId, userMessage(chatId, `m${i}`)));
  return out;
}

/** Pushes one update through the platform API; its update_id, or null when it was dropped. */
export async function push(platform: Platform, botId: number, update: unknown): Promise<number> {
  const res = await platform.pushUpdate(botId, update);
  if (res.status !== 200) throw new Error(`push failed: ${JSON.stringify(res.body)}`);
  return res.body.result.update_id;
}

/** The id of the bot's waiting poll, as claimed in Redis (null when none waits). */
export const pollOwner = (redis: Redis, botId: number) => redis.get(keys.pollOwner(botId));

/** Resolves once a poll (other than `previous`) holds the bot's waiting slot. */
export const waitingPoll = (redis: Redis, botId: number, previous: string | null = null) =>
  eventually(async () => {
    const owner = await pollOwner(redis, botId);
    return owner !== null && owner !== previous;
  });

export const ids = (reply: Reply) => (reply.body.result as { update_id: number }[]).map((u) => u.update_id);
