import { RawJson } from "@starpost/shared";

/**
 * Bot API JSON that a Lua step completes: TypeScript builds the whole shape, in the official key
 * order, and marks each value only the step knows (a message_id it assigns, a date on the bot's
 * clock, a stored Chat) with `fill(name)`; the step (fill.lua) replaces each mark with that
 * value's JSON text. A mark is `\x01name\x01` written outside any string: JSON.stringify escapes
 * every control character, so no value built here (a user's text included) can contain one.
 */
export const fill = (name: string): RawJson => new RawJson(`\u0001${name}\u0001`);

/**
 * `{"k":v,...}` in the order given, `undefined` members left out; a RawJson member (a mark, a
 * nested template, JSON text already built) is written as is, any other as JSON.
 */
export function jsonTemplate(members: Record<string, unknown>): RawJson {
  let out = "";
  for (const [k, v] of Object.entries(members)) {
    if (v === undefined) continue;
    out += `${out ? "," : "{"}${JSON.stringify(k)}:${v instanceof RawJson ? v.json : JSON.stringify(v)}`;
  }
  return new RawJson(out ? `${out}}` : "{}");
}
