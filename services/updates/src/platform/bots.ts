import type { Redis } from "ioredis";
import {
  Errors,
  failure,
  hashToken,
  keys,
  newSecret,
  parseToken,
  success,
  type CreateBotBody,
  type MethodOutcome,
} from "@starpost/shared";

/** Generated bot ids start here, clear of ids that tests and operators tend to pick by hand. */
const FIRST_GENERATED_ID = 7_000_000_000;

/** `POST /platform/v1/bots`: registers a bot; a given token `<id>:<secret>` is used as is. */
export async function createBot(redis: Redis, body: CreateBotBody): Promise<MethodOutcome> {
  let id: string;
  let token: string;
  if (body.token !== undefined) {
    const parsed = parseToken(body.token);
    if (!parsed) return failure(Errors.tokenFormatInvalid());
    id = parsed.id;
    token = body.token;
    if (await redis.exists(keys.bot(id))) return failure(Errors.tokenTaken());
  } else {
    do id = String(FIRST_GENERATED_ID + (await redis.incr(keys.botIdSeq())));
    while (await redis.exists(keys.bot(id)));
    token = `${id}:${newSecret()}`;
  }
  const claimed = await redis.hsetnx(keys.botUsernames(), body.username.toLowerCase(), id);
  if (!claimed) return failure(Errors.usernameTaken());
  const firstName = body.first_name ?? body.username;
  const created = await redis.hsetnx(keys.bot(id), "token_hash", hashToken(token));
  if (!created) {
    await redis.hdel(keys.botUsernames(), body.username.toLowerCase());
    return failure(Errors.tokenTaken());
  }
  await redis.hset(keys.bot(id), { username: body.username, first_name: firstName, created_at: Date.now() });
  return success({ id: Number(id), is_bot: true, first_name: firstName, username: body.username, token });
}

/** `POST /platform/v1/bots/:botId/token`: a new token; the old one fails at once everywhere. */
export async function rotateToken(redis: Redis, botId: string): Promise<MethodOutcome> {
  if (!(await redis.exists(keys.bot(botId)))) return failure(Errors.botNotFound());
  const token = `${botId}:${newSecret()}`;
  await redis.hset(keys.bot(botId), "token_hash", hashToken(token));
  return success({ token });
}
