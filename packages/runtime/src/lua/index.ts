import type { Fault } from "@starpost/shared";
import { luaSlot, scriptsIn } from "./bridge.ts";

const { one, rest } = luaSlot;

export * from "./bridge.ts";

/** This folder: other scripts include request-log.lua and activity.lua from it. */
export const RUNTIME_LUA = new URL("./", import.meta.url).href;

const script = scriptsIn(import.meta.url);

const done = (n: number) => n === 1;

/** The runtime's scripts (faults and the request log), each declared once. */
export const runtimeScripts = {
  addFault: script("add-fault.lua", {
    keys: { bot: one(), faults: one(), faultSeq: one() },
    args: { rule: one(), max: one() },
    /** the new fault's id; "missing" when the bot does not exist, "full" when it holds the most faults. */
    reply: (id: number) => (id === -1 ? ("missing" as const) : id === -2 ? ("full" as const) : id),
  }),
  takeFault: script("take-fault.lua", {
    keys: { bot: one(), faults: one() },
    args: { method: one() },
    reply: (json: string | null) => (json === null ? undefined : (JSON.parse(json) as Fault)),
  }),
  recordRequest: script("record-request.lua", {
    keys: { bot: one(), log: one(), activity: one() },
    args: { kept: one<number>(), entries: rest() },
    reply: done,
  }),
};
