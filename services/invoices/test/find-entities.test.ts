import { describe, expect, it } from "vitest";
import { withFoundEntities } from "../src/params/find-entities.ts";

/** The texts of the entities of `type` found in `text`. */
const found = (text: string, type: string) =>
  withFoundEntities(text, [])
    .filter((e) => e.type === type)
    .map((e) => text.slice(e.offset, e.offset + e.length));

// Cases from TDLib's own test of its matchers (test/message_entities.cpp).
describe("the entities Telegram finds by itself", () => {
  it("mentions: @ and 2–32 of [A-Za-z0-9_] after no word character; under 4 only the valid short names", () => {
    const cases: [string, string[]][] = [
      ["@mention", ["@mention"]],
      [" @mention ", ["@mention"]],
      ["@abc @xyz @abc @xyz @xxx@yyy @ttt", []],
      ["@abcde @xyzxy @abcde @xyzxy @xxxxx@yyyyy @ttttt", ["@abcde", "@xyzxy", "@abcde", "@xyzxy", "@xxxxx", "@ttttt"]],
      ["no@mention", []],
      ["@n", []],
      ["@abcdefghijklmnopqrstuvwxyz123456", ["@abcdefghijklmnopqrstuvwxyz123456"]],
      ["@abcdefghijklmnopqrstuvwxyz1234567", []],
      ["нет@mention", []],
      ["@gif", ["@gif"]],
    ];
    for (const [text, expected] of cases)
      expect({ text, found: found(text, "mention") }).toEqual({ text, found: expected });
  });

  it("bot commands: / and 1–64 of [A-Za-z0-9_], an @bot of 3–32, not next to a word, /, < or >", () => {
    const cases: [string, string[]][] = [
      ["/abc", ["/abc"]],
      [" /abc ", ["/abc"]],
      ["/a@abc", ["/a@abc"]],
      ["/a@b", []],
      ["/@bfdsa", []],
      ["/test/", []],
    ];
    for (const [text, expected] of cases)
      expect({ text, found: found(text, "bot_command") }).toEqual({ text, found: expected });
  });

  it("hashtags: # and up to 256 letters, digits or _ with at least one letter, an optional @name", () => {
    const cases: [string, string[]][] = [
      ["#", []],
      ["##", []],
      ["#a", ["#a"]],
      [" #я ", ["#я"]],
      [" я#a ", []],
      [" #a# ", []],
      [" #123 ", []],
      [" #123a ", ["#123a"]],
      ["#a#b #c #d", ["#c", "#d"]],
      ["#test@a", ["#test"]],
      ["#test@abc", ["#test@abc"]],
      ["#test@a-c", ["#test"]],
      ["#te·st", ["#te·st"]],
      ["#a\u2122", ["#a"]],
      [" #" + "1".repeat(255) + "a", ["#" + "1".repeat(255) + "a"]],
      [" #" + "1".repeat(256) + "a ", []],
    ];
    for (const [text, expected] of cases)
      expect({ text, found: found(text, "hashtag") }).toEqual({ text, found: expected });
  });

  it("cashtags: $ and 1–8 capital letters (or 1INCH), an optional @name, not next to a letter, digit or $", () => {
    const cases: [string, string[]][] = [
      ["$a", []],
      ["$A", ["$A"]],
      ["$ABCDEFGH", ["$ABCDEFGH"]],
      ["$ABCDEFGHJ", []],
      ["$ABCDEFGH1", []],
      [" $$XYZ ", []],
      [" $XYZ$ ", []],
      [" 1$ABC ", []],
      ["$ABC$DEF $GHI $KLM", ["$GHI", "$KLM"]],
      ["$TEST@abc", ["$TEST@abc"]],
      ["$1INCH", ["$1INCH"]],
    ];
    for (const [text, expected] of cases)
      expect({ text, found: found(text, "cashtag") }).toEqual({ text, found: expected });
  });

  it("http(s) URLs with a dotted host, without closing punctuation; found entities never overlap others", () => {
    expect(found("see https://example.com/a?b=1. Then", "url")).toEqual(["https://example.com/a?b=1"]);
    expect(found("(http://t.me/shop_bot)", "url")).toEqual(["http://t.me/shop_bot"]);
    expect(found("https://localhost/x", "url")).toEqual([]);
    // A mention inside a URL is part of the URL.
    expect(withFoundEntities("https://t.me/@ann x", [])).toEqual([{ offset: 0, length: 17, type: "url" }]);
    // Formatting does not block a found entity; a code span does.
    const bold = { offset: 0, length: 8, type: "bold" };
    expect(withFoundEntities("@ann_lee", [bold])).toEqual([bold, { offset: 0, length: 8, type: "mention" }]);
    const code = { offset: 0, length: 8, type: "code" };
    expect(withFoundEntities("@ann_lee", [code])).toEqual([code]);
    // Offsets count UTF-16 units, as the Bot API's do.
    expect(withFoundEntities("😀 /start", [])).toEqual([{ offset: 3, length: 6, type: "bot_command" }]);
  });
});
