import { expect, it } from "vitest";
import { ALLOWED_UPDATE_NAMES, DEFAULT_ALLOWED, normaliseAllowedUpdates, UPDATE_KINDS } from "@starpost/update-log";

it("every update kind can be named in allowed_updates, in the reference's UpdateType list", () => {
  expect(UPDATE_KINDS.map((k) => k.name).filter((n) => !ALLOWED_UPDATE_NAMES.includes(n))).toEqual([]);
  // The reference's default: every name but chat_member, message_reaction and message_reaction_count.
  expect(ALLOWED_UPDATE_NAMES.filter((n) => !DEFAULT_ALLOWED.includes(n))).toEqual([
    "chat_member",
    "message_reaction",
    "message_reaction_count",
  ]);
});

it("reads a list as get_allowed_update_types: UpdateType order, ASCII case, a non-string keeps the setting", () => {
  expect(normaliseAllowedUpdates(["POLL", "Message", "nope"])).toEqual(["message", "poll"]);
  expect(normaliseAllowedUpdates(["message", 5])).toBe("keep");
  expect(normaliseAllowedUpdates(["nope"])).toBeUndefined();
  expect(normaliseAllowedUpdates([...DEFAULT_ALLOWED])).toBeUndefined();
  // "CALLBAC\u212A_QUERY": the Kelvin sign is not an ASCII K.
  expect(normaliseAllowedUpdates(["CALLBAC\u212A_QUERY"])).toBeUndefined();
});
