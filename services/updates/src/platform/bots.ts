import type { Redis } from "ioredis";
import { keys, ok, type CreateBotBody } from "@starpost/shared";
import { botFrom, hashToken, invalidationsSent, newSecret, parseToken } from "@starpost/runtime";
import { updatesScripts } from "../lua/index.ts";
import type { Outcome } from "../outcomes.ts";

/** Generated bot ids start here, clear of ids that tests and operators tend to pick by hand. */
const FIRST_GENERATED_ID = 7_000_000_000;

/** A username claim whose bot never appeared may be taken over after this long (creation takes ms). */
export const CLAIM_LEASE_MS = 10_000;

/**
 * Claims `username` for bot `id` in the global registry (another slot than the bot's own keys, so
 * not in the bot's Lua step). A claim whose bot does not exist, older than the lease, was left by
 * a creation interrupted between its two steps: it is taken over, so a retried creation succeeds.
 */
async function claimUsername(redis: Redis, lower: string, id: string): Promise<boolean> {
  if (await setUsername(redis, lower, id, "")) return true;
  const owner = await redis.hget(keys.botUsernames(), lower);
  if (owner === null || (await redis.exists(keys.bot(owner)))) return false;
  return setUsername(redis, lower, id, owner);
}

/** The registry's compare-and-set (claim-username.lua) with the creation lease. */
const setUsername = (redis: Redis, name: string, id: string, expected: string) =>
  updatesScripts.claimUsername(
    redis,
    { usernames: keys.botUsernames() },
    { name, id, expected, lease: CLAIM_LEASE_MS },
  );

/**
 * `POST /platform/v1/bots`: registers a bot; a given token `<id>:<secret>` is used as is. Two
 * steps: the username claim, then the bot with its token in one Lua step; a creation that dies
 * between them is completed by a retry (see claimUsername).
 */
export async function createBot(
  redis: Redis,
  body: CreateBotBody,
): Promise<Outcome<Record<string, unknown>, { outcome: "token_format_invalid" | "token_taken" | "username_taken" }>> {
  let id: string;
  let token: string;
  if (body.token !== undefined) {
    const parsed = parseToken(body.token);
    if (!parsed) return { outcome: "token_format_invalid" };
    id = parsed.id;
    token = body.token;
    if (await redis.exists(keys.bot(id))) return { outcome: "token_taken" };
  } else {
    do id = String(FIRST_GENERATED_ID + (await redis.incr(keys.botIdSeq())));
    while (await redis.exists(keys.bot(id)));
    token = `${id}:${newSecret()}`;
  }
  const lower = body.username.toLowerCase();
  if (!(await claimUsername(redis, lower, id))) return { outcome: "username_taken" };
  const firstName = body.first_name ?? body.username;
  const fields = {
    token_hash: hashToken(token),
    username: body.username,
    first_name: firstName,
    created_at: Date.now(),
    ...(body.tag ? { tag: body.tag } : {}),
  };
  // Before the bot exists, as the username: a creation that dies here leaves an entry the tag's
  // next deletion drops once the lease has passed, never a tagged bot its deletion misses.
  if (body.tag) await redis.hset(keys.botTag(body.tag), id, Date.now());
  if (!(await updatesScripts.createBot(redis, { bot: keys.bot(id) }, { fields: Object.entries(fields).flat() }))) {
    await setUsername(redis, lower, "", id);
    if (body.tag) await redis.hdel(keys.botTag(body.tag), id);
    return { outcome: "token_taken" };
  }
  // A creation that stalled past the lease may have lost its claim meanwhile: the new owner wins.
  if ((await redis.hget(keys.botUsernames(), lower)) !== id) {
    await redis.del(keys.bot(id));
    return { outcome: "username_taken" };
  }
  return ok({
    ...botFrom({ id, username: body.username, first_name: firstName }),
    token,
    ...(body.tag ? { tag: body.tag } : {}),
  });
}

/** `POST /platform/v1/bots/:botId/token`: a new token; the old one fails at once everywhere. */
export async function rotateToken(
  redis: Redis,
  botId: string,
): Promise<Outcome<{ token: string }, { outcome: "bot_not_found" }>> {
  const token = `${botId}:${newSecret()}`;
  const rotated = await updatesScripts.rotateToken(redis, { bot: keys.bot(botId) }, { tokenHash: hashToken(token) });
  await invalidationsSent(redis);
  return rotated ? ok({ token }) : { outcome: "bot_not_found" };
}
