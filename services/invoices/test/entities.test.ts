import { describe, expect, it } from "vitest";
import { parseEntities } from "../src/params/entities.ts";

// Cases and texts from td's own tests (test/message_entities.cpp), where starpost covers the style.

/** What parseEntities gives for td's error text: the registry error the client receives. */
const failure = (text: string) => ({
  error: expect.objectContaining({ description: `Bad Request: can't parse entities: ${text}` }),
});

describe("parse_mode HTML", () => {
  it.each([
    ["🏟 🏟&lt;<abac>", 'Unsupported start tag "abac" at byte offset 13'],
    ["🏟 🏟&lt;<i   =aba>", 'Empty attribute name in the tag "i" at byte offset 13'],
    ["🏟 🏟&lt;<i    aba>", 'Can\'t find end tag corresponding to start tag "i"'],
    ["🏟 🏟&lt;<i    aba  =  ", 'Unclosed start tag "i" at byte offset 13'],
    ["🏟 🏟&lt;<i    aba  =  190azAz-.,", "Unexpected end of name token at byte offset 27"],
    ['🏟 🏟&lt;<i    aba  =  "&lt;&gt;&quot;>', "Unclosed start tag at byte offset 13"],
    ["🏟 🏟&lt;</", "Unexpected end tag at byte offset 13"],
    ["🏟 🏟&lt;<b></b></", "Unexpected end tag at byte offset 20"],
    ["🏟 🏟&lt;<i>a</i   ", "Unclosed end tag at byte offset 17"],
    ["🏟 🏟&lt;<i>a</em   >", 'Unmatched end tag at byte offset 17, expected "</i>", found "</em>"'],
    ['🏟 🏟&lt;<span class="x">a</span>', 'Tag "span" must have class "tg-spoiler" at byte offset 13'],
  ])("%s → %s", (markup, error) => {
    expect(parseEntities(markup, "HTML")).toEqual(failure(error));
  });

  it("decodes entities and makes the common styles, offsets in UTF-16 units", () => {
    expect(parseEntities("&lt;&gt;&amp;&quot;&#12345678;&Or;", "HTML")).toEqual({
      text: '<>&"&#12345678;&Or;',
      entities: [],
    });
    expect(parseEntities("➡️ ➡️<i>➡️ ➡️</i>", "HTML")).toEqual({
      text: "➡️ ➡️➡️ ➡️",
      entities: [{ type: "italic", offset: 5, length: 5 }],
    });
    expect(
      parseEntities(
        '<b>a<u>b</u></b><s>c</s><span class="tg-spoiler">d</span><tg-spoiler>e</tg-spoiler><code>f</code><pre><code class="language-js">g</code></pre>',
        "HTML",
      ),
    ).toEqual({
      text: "abcdefg",
      entities: [
        { type: "bold", offset: 0, length: 2 },
        { type: "underline", offset: 1, length: 1 },
        { type: "strikethrough", offset: 2, length: 1 },
        { type: "spoiler", offset: 3, length: 1 },
        { type: "spoiler", offset: 4, length: 1 },
        { type: "code", offset: 5, length: 1 },
        { type: "pre", offset: 6, length: 1, language: "js" },
      ],
    });
    expect(parseEntities('<a href="https://t.me/x">t</a><a href="nohost">n</a>', "HTML")).toEqual({
      text: "tn",
      entities: [{ type: "text_link", offset: 0, length: 1, url: "https://t.me/x" }],
    });
  });
});

describe("parse_mode MarkdownV2", () => {
  it.each([
    ["🏟 🏟_abacaba", "Can't find end of Italic entity at byte offset 9"],
    ["🏟 🏟_abac * asd ", "Can't find end of Bold entity at byte offset 15"],
    ["🏟 🏟`", "Can't find end of Code entity at byte offset 9"],
    ["🏟 🏟```", "Can't find end of Pre entity at byte offset 9"],
    ["🏟 🏟```a", "Can't find end of Pre entity at byte offset 9"],
    ["🏟 🏟```a ", "Can't find end of PreCode entity at byte offset 9"],
    ["🏟 🏟__🏟 🏟_", "Can't find end of Italic entity at byte offset 20"],
    ["🏟 🏟_🏟 🏟__", "Can't find end of Underline entity at byte offset 19"],
    ["[telegram\\.org](asd\\)", "Can't find end of a URL at byte offset 16"],
    ["🏟 🏟||test\\|", "Can't find end of Spoiler entity at byte offset 9"],
    ["🏟 🏟!", "Character '!' is reserved and must be escaped with the preceding '\\'"],
    ["a.b", "Character '.' is reserved and must be escaped with the preceding '\\'"],
  ])("%s → %s", (markup, error) => {
    expect(parseEntities(markup, "MarkdownV2")).toEqual(failure(error));
  });

  it("parses nested styles, links and pre blocks like td", () => {
    expect(parseEntities("🏟 🏟_abac \\* asd _", "MarkdownV2")).toEqual({
      text: "🏟 🏟abac * asd ",
      entities: [{ type: "italic", offset: 5, length: 11 }],
    });
    expect(parseEntities("🏟 🏟_🏟 __🏟___", "MarkdownV2")).toEqual({
      text: "🏟 🏟🏟 🏟",
      entities: [
        { type: "italic", offset: 5, length: 5 },
        { type: "underline", offset: 8, length: 2 },
      ],
    });
    expect(parseEntities("🏟 🏟```🏟 🏟```", "MarkdownV2")).toEqual({
      text: "🏟 🏟 🏟",
      entities: [{ type: "pre", offset: 5, length: 3, language: "🏟" }],
    });
    expect(parseEntities("||test||", "MarkdownV2")).toEqual({
      text: "test",
      entities: [{ type: "spoiler", offset: 0, length: 4 }],
    });
    expect(parseEntities("[telegram\\.org](telegram.dog)", "MarkdownV2")).toEqual({
      text: "telegram.org",
      entities: [{ type: "text_link", offset: 0, length: 12, url: "http://telegram.dog/" }],
    });
    expect(parseEntities("[telegram\\.org](https://telegram.dog?)", "MarkdownV2")).toEqual({
      text: "telegram.org",
      entities: [{ type: "text_link", offset: 0, length: 12, url: "https://telegram.dog/?" }],
    });
    expect(parseEntities("[telegram\\.org](asdasd)", "MarkdownV2")).toEqual({ text: "telegram.org", entities: [] });
  });
});

describe("parse_mode Markdown (legacy)", () => {
  it("parses *bold*, _italic_, `code`, ```pre``` and links; an open entity is an error", () => {
    expect(parseEntities("*b* _i_ `c` ```js\nx``` [l](https://t.me)", "Markdown")).toEqual({
      text: "b i c x l",
      entities: [
        { type: "bold", offset: 0, length: 1 },
        { type: "italic", offset: 2, length: 1 },
        { type: "code", offset: 4, length: 1 },
        { type: "pre", offset: 6, length: 1, language: "js" },
        { type: "text_link", offset: 8, length: 1, url: "https://t.me/" },
      ],
    });
    expect(parseEntities("a.b \\_x", "Markdown")).toEqual({ text: "a.b _x", entities: [] });
    expect(parseEntities("ab _c", "Markdown")).toEqual(
      failure("Can't find end of the entity starting at byte offset 3"),
    );
  });
});
