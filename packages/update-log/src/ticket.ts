/**
 * A drain ticket names one drain epoch of a webhook bot, "<webhook generation>_<epoch>"
 * (lua/drain-epoch.lua): the step that opens the epoch returns it and the epoch's one drain job is
 * named after it, so a job is never deduplicated into another epoch's.
 */

/** A Lua step's ticket as it answered it: 0 or "" (no drain wanted) is undefined. */
export const ticketOf = (v: unknown): string | undefined => (typeof v === "string" && v !== "" ? v : undefined);

/** The drain job of a bot's epoch. */
export const drainJobId = (botId: string, ticket: string) => `bot-${botId}-${ticket}`;
