import { readFileSync } from "node:fs";
import type { Redis } from "ioredis";
import { botKeys } from "../redis-keys.ts";

/** starpost's Lua commands, each defined once per client with defineCommand. */
const SCRIPTS = {
  spAppendUpdates: { file: "append-updates.lua", keys: 10 },
  spPollUpdates: { file: "poll-updates.lua", keys: 4 },
  spReleasePoll: { file: "release-poll.lua", keys: 1 },
  spRecordWebhookFailure: { file: "record-webhook-failure.lua", keys: 2 },
  spAddFault: { file: "add-fault.lua", keys: 3 },
  spTakeFault: { file: "take-fault.lua", keys: 2 },
  spRecordRequest: { file: "record-request.lua", keys: 2 },
  spDeleteBot: { file: "delete-bot.lua", keys: botKeys(0).length },
  spSetWebhook: { file: "set-webhook.lua", keys: 4 },
  spDeleteWebhook: { file: "delete-webhook.lua", keys: 3 },
  spCreateBot: { file: "create-bot.lua", keys: 1 },
  spClaimUsername: { file: "claim-username.lua", keys: 1 },
} as const;

type Arg = string | number;

declare module "ioredis" {
  interface RedisCommander<Context> {
    spAppendUpdates(...args: Arg[]): Promise<(number | string)[]>;
    spPollUpdates(...args: Arg[]): Promise<string[]>;
    spReleasePoll(...args: Arg[]): Promise<number>;
    spRecordWebhookFailure(...args: Arg[]): Promise<number>;
    spAddFault(...args: Arg[]): Promise<number>;
    spTakeFault(...args: Arg[]): Promise<string | null>;
    spRecordRequest(...args: Arg[]): Promise<number>;
    spDeleteBot(...args: Arg[]): Promise<string | null>;
    spSetWebhook(...args: Arg[]): Promise<number>;
    spDeleteWebhook(...args: Arg[]): Promise<number>;
    spCreateBot(...args: Arg[]): Promise<number>;
    spClaimUsername(...args: Arg[]): Promise<number>;
  }
}

/** A table of Lua commands: command name -> file (beside `base`) and its number of KEYS. */
export type LuaScripts = Record<string, { file: string; keys: number }>;

/**
 * A script's source; each line `--!include <file>` is replaced by that file of this folder (the
 * shared Lua, e.g. the update log's append), so scripts share code instead of copying it.
 */
const sources = new Map<string, string>();
function source(url: URL): string {
  let lua = sources.get(url.href);
  if (lua === undefined) {
    lua = readFileSync(url, "utf8").replace(/^--!include (\S+)$/gm, (_, file: string) =>
      source(new URL(`./${file}`, import.meta.url)),
    );
    sources.set(url.href, lua);
  }
  return lua;
}

/** Defines each script of `scripts` on the client with defineCommand (a service may have its own table). */
export function defineLuaCommands(client: Redis, scripts: LuaScripts, base: string): void {
  for (const [name, { file, keys }] of Object.entries(scripts)) {
    client.defineCommand(name, { numberOfKeys: keys, lua: source(new URL(`./${file}`, base)) });
  }
}

export function defineScripts(client: Redis): void {
  defineLuaCommands(client, SCRIPTS, import.meta.url);
}
