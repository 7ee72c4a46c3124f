import { z } from "zod";
import { looseInt, reader } from "@starpost/shared";
import { readAllowedUpdatesParam } from "@starpost/update-log";

/** The official server keeps a poll open at most this long (seconds). */
export const LONG_POLL_MAX_TIMEOUT = 50;
/**
 * A negative offset keeps at most this many of the newest updates: the contract's limit (spec,
 * getUpdates: "down to -10000"); the reference keeps |offset| (Client.cpp at 01a3679, line 16326).
 */
export const MAX_NEGATIVE_OFFSET = 10_000;

const clamp = (v: number, lo: number, hi: number) => Math.min(hi, Math.max(lo, v));

/**
 * getUpdates' parameters. The official server clamps these numbers and never answers an error
 * for them, so neither does starpost: values are read with to_integer (garbage is 0), then clamped.
 * `allowed_updates`: `undefined` keeps the bot's setting, `null` restores the default.
 */
export const GetUpdatesParams = z.looseObject({
  offset: looseInt().transform((v) => Math.max(v ?? 0, -MAX_NEGATIVE_OFFSET)),
  limit: looseInt().transform((v) => clamp(v ?? 100, 1, 100)),
  timeout: looseInt().transform((v) => clamp(v ?? 0, 0, LONG_POLL_MAX_TIMEOUT)),
  allowed_updates: reader("readAllowedUpdatesParam", z.unknown().optional().transform(readAllowedUpdatesParam)),
});
export type GetUpdatesParams = z.infer<typeof GetUpdatesParams>;
