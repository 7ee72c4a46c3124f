/**
 * A drain ticket names one drain epoch of a webhook bot, "<webhook generation>_<epoch>"
 * (lua/drain-epoch.lua): the step that opens the epoch returns it and the epoch's one drain job is
 * named after it, so a job is never deduplicated into another epoch's.
 */

/** A Lua step's ticket as it answered it: 0 or "" (no drain wanted) is undefined. */
export const ticketOf = (v: unknown): string | undefined => (typeof v === "string" && v !== "" ? v : undefined);

/** The drain job of a bot's epoch. */
export const drainJobId = (botId: string, ticket: string) => `bot-${botId}-${ticket}`;

/**
 * A job's carried start (DrainFirst) is used only this soon after its step: a job asked for by a
 * recheck waits RECHECK_DELAY_MS, longer, so a recheck that raced a step and its job add never
 * drains the epoch before a carried job that would then send its updates again.
 */
export const CARRIED_FRESH_MS = 1000;
export const RECHECK_DELAY_MS = 2 * CARRIED_FRESH_MS;
