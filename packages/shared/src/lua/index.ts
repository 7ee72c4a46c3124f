import { readFileSync } from "node:fs";
import type { Redis } from "ioredis";

/** starpost's Lua commands, each defined once per client with defineCommand. */
const SCRIPTS = {
  spAppendUpdates: { file: "append-updates.lua", keys: 8 },
  spPollUpdates: { file: "poll-updates.lua", keys: 4 },
  spReleasePoll: { file: "release-poll.lua", keys: 1 },
} as const;

type Arg = string | number;

declare module "ioredis" {
  interface RedisCommander<Context> {
    spAppendUpdates(...args: Arg[]): Promise<(number | string)[]>;
    spPollUpdates(...args: Arg[]): Promise<string[]>;
    spReleasePoll(...args: Arg[]): Promise<number>;
  }
}

const sources = new Map<string, string>();
function source(file: string): string {
  let lua = sources.get(file);
  if (lua === undefined) {
    lua = readFileSync(new URL(`./${file}`, import.meta.url), "utf8");
    sources.set(file, lua);
  }
  return lua;
}

export function defineScripts(client: Redis): void {
  for (const [name, { file, keys }] of Object.entries(SCRIPTS)) {
    client.defineCommand(name, { numberOfKeys: keys, lua: source(file) });
  }
}
