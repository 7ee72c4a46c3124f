import { createHash, randomBytes, timingSafeEqual } from "node:crypto";
import type { Redis } from "ioredis";
import { keys } from "@starpost/shared";

/**
 * Bots and their tokens. Only a SHA-256 of each token is stored; a call's token is checked by
 * hashing it and comparing, so a rotated token fails on every gateway replica at once.
 */

export interface BotRecord {
  id: string;
  username: string;
  first_name: string;
}

export const hashToken = (token: string) => createHash("sha256").update(token).digest("hex");

/** Two token hashes compared in constant time. */
export const sameHash = (a: string, b: string) =>
  a.length === b.length && timingSafeEqual(Buffer.from(a), Buffer.from(b));

/**
 * The answer for a token whose bot does not exist, after the work a wrong secret costs (hashing the
 * token), so the two take the same time.
 */
export function unknownAfterHashing(token: string): TokenCheck {
  sameHash(hashToken(token), UNKNOWN_HASH);
  return { outcome: "unknown" };
}
const UNKNOWN_HASH = hashToken("");
export const newSecret = () => randomBytes(26).toString("base64url").slice(0, 35);

export type TokenCheck =
  | { outcome: "malformed" }
  | { outcome: "unknown" }
  /** hasFaults: scripted faults wait for this bot's calls (the gateway then looks them up). */
  | { outcome: "ok"; bot: BotRecord; hasFaults: boolean };

/** Token shape the official server accepts: `<positive id>:<secret>`, at most 80 chars, no `/`. */
export function parseToken(token: string): { id: string } | undefined {
  if (token.length === 0 || token.length > 80 || token.includes("/")) return undefined;
  const colon = token.indexOf(":");
  if (colon <= 0) return undefined;
  const id = token.slice(0, colon);
  if (!isBotId(id)) return undefined;
  return { id };
}

/** The one rule for a bot id (a token's, a platform path's): a positive integer of at most 16 digits. */
export const BOT_ID = /^[1-9]\d{0,15}$/;
export const isBotId = (s: string | undefined): s is string => s !== undefined && BOT_ID.test(s);

export async function checkToken(redis: Redis, token: string): Promise<TokenCheck> {
  const parsed = parseToken(token);
  if (!parsed) return { outcome: "malformed" };
  const [hash, username, firstName, faults] = await redis.hmget(
    keys.bot(parsed.id),
    "token_hash",
    "username",
    "first_name",
    "faults",
  );
  if (!hash) return unknownAfterHashing(token);
  if (!sameHash(hash, hashToken(token))) return { outcome: "unknown" };
  return {
    outcome: "ok",
    bot: { id: parsed.id, username: username!, first_name: firstName! },
    hasFaults: faults !== null,
  };
}

/**
 * Waits until the gateways' bot caches have been told of a write to a bot's hash, before the
 * write is answered. Redis queues a tracking invalidation while it runs the write, but in the pass
 * that sends replies it may send the writer's reply first (and be paused, on a loaded machine,
 * before it sends the invalidation): a caller answered at once could call a gateway that still
 * holds the old record. Every reply and message queued in one pass is sent before Redis reads the
 * next command, so the reply to one more command (a PING) comes after every invalidation was sent.
 */
export async function invalidationsSent(redis: Redis): Promise<void> {
  await redis.ping();
}

export async function getBot(redis: Redis, botId: string): Promise<BotRecord | undefined> {
  const [username, firstName] = await redis.hmget(keys.bot(botId), "username", "first_name");
  if (!username) return undefined;
  return { id: botId, username, first_name: firstName ?? username };
}

/** The bot as a User where it appears in messages (`Message.from`), in the Bot API's key order. */
export function botFrom(bot: BotRecord) {
  return { id: Number(bot.id), is_bot: true as const, first_name: bot.first_name, username: bot.username };
}

/** The Bot API User object of a bot, as getMe returns it (JsonUser with full_bot_info, Client.cpp at 01a3679, line 486). */
export function botUser(bot: BotRecord) {
  return {
    ...botFrom(bot),
    can_join_groups: true,
    can_read_all_group_messages: false,
    supports_inline_queries: false,
    supports_guest_queries: false,
    can_connect_to_business: false,
    has_main_web_app: false,
    has_topics_enabled: false,
    allows_users_to_create_topics: false,
    can_manage_bots: false,
  };
}
