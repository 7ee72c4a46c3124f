import type { Fault } from "../faults.ts";
import type { PollOutcome, PollWaitMode } from "../update-log.ts";
import { luaSlot, scriptsIn, type LuaValue } from "./bridge.ts";

const { one, run, rest } = luaSlot;

export * from "./bridge.ts";

const script = scriptsIn(import.meta.url);

/** The update log's first KEYS and ARGV (update-log.lua's log_open), in every script that appends. */
export const logSlots = {
  keys: () => run(4),
  args: () => run<3, LuaValue>(3),
  /** kind, opt-in flag, lifetime (ms) of an update a script builds itself. */
  kind: () => run(3),
};

const flag = () => one<"0" | "1">();
const done = (n: number) => n === 1;

/**
 * starpost's shared Lua scripts, each declared once: its KEYS and ARGV by name (in the order of
 * the header of its .lua file, which a test checks) and its reply decoded.
 */
export const scripts = {
  appendUpdates: script("append-updates.lua", {
    keys: {
      log: logSlots.keys(),
      bot: one(),
      chats: one(),
      chatUsernames: one(),
      users: one(),
      messageSeq: one(),
      messages: one(),
    },
    args: { log: logSlots.args(), chats: one<number>(), users: one<number>(), records: rest<LuaValue>() },
    /** undefined when the bot does not exist; `results` per appended update: its id or drop reason, then its message id when recorded. */
    reply: (r: (number | string)[]) => (r[0] === -1 ? undefined : { webhook: r[0] === 1, results: r.slice(1) }),
  }),
  pollUpdates: script("poll-updates.lua", {
    keys: { stream: one(), counter: one(), webhook: one(), owner: one() },
    args: {
      offset: one<number>(),
      limit: one<number>(),
      now: one<number>(),
      pollId: one(),
      mode: one<PollWaitMode>(),
      ownerTtl: one<number>(),
      wakeChannel: one(),
      botId: one(),
    },
    reply: ([head, ...updates]: string[]): PollOutcome =>
      head === "ok" ? { outcome: "updates", updates } : { outcome: head as "webhook" | "wait" | "gone" },
  }),
  releasePoll: script("release-poll.lua", {
    keys: { owner: one() },
    args: { pollId: one() },
    reply: done,
  }),
  recordWebhookFailure: script("record-webhook-failure.lua", {
    keys: { webhook: one(), status: one() },
    args: {
      generation: one(),
      dateField: one(),
      date: one<number>(),
      messageField: one(),
      message: one(),
      okField: one(),
      retryField: one(),
      retry: one(),
    },
    /** false when the webhook changed meanwhile. */
    reply: done,
  }),
  addFault: script("add-fault.lua", {
    keys: { bot: one(), faults: one(), faultSeq: one() },
    args: { rule: one() },
    /** the new fault's id; undefined when the bot does not exist. */
    reply: (id: number) => (id < 0 ? undefined : id),
  }),
  takeFault: script("take-fault.lua", {
    keys: { bot: one(), faults: one() },
    args: { method: one() },
    reply: (json: string | null) => (json === null ? undefined : (JSON.parse(json) as Fault)),
  }),
  recordRequest: script("record-request.lua", {
    keys: { bot: one(), log: one() },
    args: { kept: one<number>(), entries: rest() },
    reply: done,
  }),
  deleteBot: script("delete-bot.lua", {
    keys: { all: rest() },
    args: { wakeChannel: one(), message: one() },
    /** the deleted bot's username; undefined when there was no bot. */
    reply: (username: string | null) => username ?? undefined,
  }),
  setWebhook: script("set-webhook.lua", {
    keys: { webhook: one(), status: one(), allowedUpdates: one(), log: one(), pollOwner: one() },
    args: {
      drop: flag(),
      allowedMode: one<"keep" | "default" | "set">(),
      wakeChannel: one(),
      message: one(),
      fieldValues: one<number>(),
      values: rest(),
    },
    /** the number of pending updates. */
    reply: (pending: number) => pending,
  }),
  deleteWebhook: script("delete-webhook.lua", {
    keys: { webhook: one(), status: one(), log: one() },
    args: { drop: flag(), wakeChannel: one(), message: one() },
    /** true when a webhook was removed. */
    reply: done,
  }),
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
};
export * from "./template.ts";
