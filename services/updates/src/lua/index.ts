import { luaSlot, RUNTIME_LUA, scriptsIn, type LuaValue } from "@starpost/runtime";
import { ticketOf, UPDATE_LOG_LUA, type AllowedMode } from "@starpost/update-log";

const { one, rest } = luaSlot;

const script = scriptsIn(import.meta.url, [UPDATE_LOG_LUA, RUNTIME_LUA]);

/** Why setWebhook refused the URL's address (found before its step, reported by it). */
export type AddressRefusal = "reserved" | "unresolved" | "own_endpoint";
type SetWebhookResult = "set" | "too_often" | "unchanged" | AddressRefusal;

const flag = () => one<"0" | "1">();
const done = (n: number) => n === 1;

/** The updates service's scripts (bots and webhook settings), each declared once. */
export const updatesScripts = {
  createBot: script("create-bot.lua", {
    keys: { bot: one() },
    args: { fields: rest<LuaValue>() },
    /** false when the id already had a bot. */
    reply: done,
  }),
  rotateToken: script("rotate-token.lua", {
    keys: { bot: one() },
    args: { tokenHash: one() },
    /** false when there is no such bot. */
    reply: done,
  }),
  claimUsername: script("claim-username.lua", {
    keys: { usernames: one() },
    args: { name: one(), id: one(), expected: one(), lease: one<number>() },
    reply: done,
  }),
  deleteBot: script("delete-bot.lua", {
    keys: { all: rest() },
    args: { wakeChannel: one(), message: one(), tag: one() },
    /** the deleted bot's username and tag ("" when none); "missing" without a bot, "other_tag" when its tag differs. */
    reply: (bot: [username: string, tag: string] | null | 0) =>
      bot === null ? ("missing" as const) : bot === 0 ? ("other_tag" as const) : { username: bot[0], tag: bot[1] },
  }),
  setWebhook: script("set-webhook.lua", {
    keys: {
      webhook: one(),
      status: one(),
      allowedUpdates: one(),
      log: one(),
      pollOwner: one(),
      limit: one(),
    },
    args: {
      drop: flag(),
      allowedMode: one<AllowedMode>(),
      wakeChannel: one(),
      message: one(),
      limitMs: one<number>(),
      comparable: flag(),
      verdict: one<"ok" | AddressRefusal>(),
      fieldValues: one<number>(),
      values: rest(),
    },
    /** `ticket`: the new webhook's first drain epoch, when updates are pending. */
    reply: ([result, ticket]: [SetWebhookResult, string?]) =>
      result === "set" ? { result, ticket: ticketOf(ticket) } : { result },
  }),
  deleteWebhook: script("delete-webhook.lua", {
    keys: { webhook: one(), status: one(), log: one(), allowedUpdates: one() },
    args: { drop: flag(), wakeChannel: one(), message: one(), allowedMode: one(), kinds: rest() },
    /** true when a webhook was removed. */
    reply: done,
  }),
};
