/**
 * The per-bot update log: append (with the cap, the lifetimes and the allowed_updates filter), poll
 * (getUpdates' read and its waiting-poll claim), drain (the webhook worker's read and its jobs) and
 * confirm, replays, each over its own Lua script; the wake signal is published from inside those steps.
 */
export * from "./allowed-updates.ts";
export * from "./append.ts";
export * from "./confirm.ts";
export * from "./delivery-queue.ts";
export * from "./drain.ts";
export * from "./lua/index.ts";
export * from "./poll.ts";
export * from "./replay.ts";
export * from "./ticket.ts";
export * from "./update-kinds.ts";
