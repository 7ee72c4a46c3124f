import { ok } from "@starpost/shared";
import { botUser } from "@starpost/runtime";
import { rowsOf, type MethodTable } from "@starpost/http";
import { answer } from "./outcomes.ts";
import { CloseParams, GetMeParams, LogOutParams } from "./params/bot.ts";
import { GetUpdatesParams } from "./params/get-updates.ts";
import { getUpdates, type HeldCall, type PollingDeps } from "./polling/handlers.ts";

export type { HeldCall };

const row = rowsOf<PollingDeps, HeldCall>();

/** The Bot API methods the gateway answers itself (the contract's `gateway` methods). */
export const GATEWAY_METHODS = {
  getMe: row({
    params: GetMeParams,
    summary: "the bot's User: id, is_bot, first_name, username and the getMe-only flags",
    handler: async (_deps, { bot }) => ok(botUser(bot)),
  }),
  // starpost is the bot's only server: logging out or closing has nothing to release.
  logOut: row({
    params: LogOutParams,
    summary: "true; starpost is the bot's only server, so there is nothing to log out of",
    handler: async () => ok(true),
  }),
  close: row({ params: CloseParams, summary: "true; nothing to release", handler: async () => ok(true) }),
  getUpdates: row({
    params: GetUpdatesParams,
    summary:
      "long polling: offset confirms, limit 1..100, timeout 0..50 s, allowed_updates remembered; 409 on conflicts (docs/polling.md)",
    handler: async (deps, ctx) => answer(await getUpdates(deps, ctx)),
  }),
} satisfies MethodTable<"gateway", PollingDeps, HeldCall>;
