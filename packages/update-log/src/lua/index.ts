import { luaSlot, RUNTIME_LUA, scriptsIn, type LuaValue } from "@starpost/runtime";
import { ticketOf } from "../ticket.ts";

const { one, run, rest } = luaSlot;

/** How a getUpdates read treats the bot's one waiting poll (see poll-updates.lua). */
export type PollWaitMode = "none" | "claim" | "rearm";

/** How a step treats the bot's allowed_updates (allowed-updates.lua): leave it, restore the default, or set kinds. */
export type AllowedMode = "keep" | "default" | "set";

/** What poll-updates.lua answers. */
export type PollOutcome =
  | { outcome: "webhook" }
  /** the Update JSON strings in id order, never re-parsed. */
  | { outcome: "updates"; updates: string[] }
  | { outcome: "wait" }
  | { outcome: "gone" };

/** A drain's epoch after a step (drain-epoch.lua's drain_close, or "changed": the webhook changed). */
export type DrainEpoch = "closed" | "more" | "stale" | "changed";

/** This folder: scripts elsewhere include update-log.lua, wake.lua and log-entry.lua from it. */
export const UPDATE_LOG_LUA = new URL("./", import.meta.url).href;

const script = scriptsIn(import.meta.url, [RUNTIME_LUA]);

const done = (n: number) => n === 1;

/** The update log's first KEYS and ARGV (update-log.lua's log_open), in every script that appends. */
export const logSlots = {
  keys: () => run(5),
  args: () => run<3, LuaValue>(3),
  /** kind, opt-in flag, lifetime (ms) of an update a script builds itself. */
  kind: () => run(3),
};

/**
 * What a drain job starts from without reading: open-drain.lua's webhook and status hashes
 * (field/value lists) and log rows, as the step that opened the epoch left them at `at` (Unix ms,
 * Redis's clock).
 */
export interface DrainFirst {
  webhook: string[];
  status: string[];
  rows: [string, string[]][];
  at: number;
}

/** What append-updates.lua answers for a bot that exists. */
export interface AppendReply {
  /** the drain epoch the step opened, and what its job may carry (see DeliveryQueues.request). */
  drain?: { ticket: string; first?: DrainFirst };
  results: (number | string)[];
  repeat?: { sameRequest: boolean };
}

/** The update log's own scripts, each declared once (KEYS and ARGV in its .lua header's order). */
export const logScripts = {
  appendUpdates: script("append-updates.lua", {
    keys: {
      log: logSlots.keys(),
      bot: one(),
      chats: one(),
      chatUsernames: one(),
      users: one(),
      messageSeq: one(),
      messages: one(),
      openQueries: one(),
      idempotency: one(),
      invoices: one(),
      status: one(),
    },
    args: {
      log: logSlots.args(),
      chats: one<number>(),
      users: one<number>(),
      keyLifetime: one<number>(),
      fingerprint: one(),
      records: rest<LuaValue>(),
    },
    /**
     * undefined when the bot does not exist; `results` per appended update: its id or drop reason,
     * then its message id when recorded; `repeat` for an idempotency key already used (the first
     * call's results; `sameRequest` when its fingerprint matches).
     */
    reply: (r: (number | string)[]): AppendReply | undefined => {
      if (r[0] === -1) return undefined;
      if (r[0] === -2) {
        const first = JSON.parse(r[2] as string) as (number | string)[];
        // The first call's ticket again: if its job went missing with its answer, this adds it.
        const ticket = ticketOf(first[0]);
        return {
          ...(ticket ? { drain: { ticket } } : {}),
          results: first.slice(1),
          repeat: { sameRequest: r[1] === 1 },
        };
      }
      const ticket = ticketOf(r[0]);
      const carried = r[1] as unknown as 0 | [string[], string[], [string, string[]][], number];
      const first =
        carried === 0 ? undefined : { webhook: carried[0], status: carried[1], rows: carried[2], at: carried[3] };
      return { ...(ticket ? { drain: { ticket, ...(first ? { first } : {}) } } : {}), results: r.slice(2) };
    },
  }),
  pollUpdates: script("poll-updates.lua", {
    keys: {
      stream: one(),
      counter: one(),
      webhook: one(),
      owner: one(),
      allowed: one(),
      bot: one(),
      requests: one(),
      activity: one(),
      faults: one(),
    },
    args: {
      offset: one<number>(),
      limit: one<number>(),
      now: one<number>(),
      pollId: one(),
      mode: one<PollWaitMode>(),
      ownerTtl: one<number>(),
      wakeChannel: one(),
      botId: one(),
      allowedMode: one<AllowedMode>(),
      logKept: one<number>(),
      logEntry: one(),
      kinds: rest(),
    },
    reply: ([head, ...updates]: string[]): PollOutcome =>
      head === "ok" ? { outcome: "updates", updates } : { outcome: head as "webhook" | "wait" | "gone" },
  }),
  confirmUpdates: script("confirm-updates.lua", {
    keys: { stream: one(), activity: one(), counter: one(), bot: one(), faults: one(), webhook: one() },
    args: {
      attempt: one(),
      kind: one<"confirm" | "drop">(),
      data: one(),
      wakeChannel: one(),
      botId: one(),
      ticket: one(),
      ids: rest<number>(),
    },
    reply: ([deleted, epoch]: [number, DrainEpoch]) => ({ deleted, epoch }),
  }),
  replayUpdate: script("replay-update.lua", {
    keys: { stream: one(), counter: one(), activity: one(), webhook: one(), bot: one() },
    args: { updateId: one<number>(), expiry: one<number>(), wakeChannel: one(), botId: one() },
    reply: (r: [string, number?, (number | string)?]) =>
      r as ["replayed", number, number | string] | ["bot_not_found" | "pending" | "not_found"],
  }),
  releasePoll: script("release-poll.lua", {
    keys: { owner: one() },
    args: { pollId: one() },
    reply: done,
  }),
  pendingForWebhook: script("pending-for-webhook.lua", {
    keys: { webhook: one(), log: one(), status: one() },
    args: { unlessHeld: one<"0" | "1">() },
    /** the ticket of the bot's open drain epoch when updates are pending for its webhook. */
    reply: (ticket: string) => ticketOf(ticket),
  }),
};
