import type { MessageEntity } from "./entities.ts";

/**
 * The entities Telegram finds in a text by itself (TDLib's find_entities, MessageEntity.cpp),
 * merged into a bot's message as fix_formatted_text merges them: mentions, bot commands,
 * hashtags, cashtags and http(s) URLs, each where it does not overlap an entity already there.
 * A port of TDLib's matchers for the first four; URLs only with an explicit http:// or https://
 * scheme and a dotted host (TDLib's find_urls also finds bare domains against its list of
 * top-level domains, and e-mail addresses, which starpost leaves out). Offsets are UTF-16 units.
 */

const LETTER = /\p{L}/u;
const DIGIT = /\p{Nd}/u;
const NUMBER = /\p{N}/u;
const ALNUM_ = /[A-Za-z0-9_]/;
/** The valid short usernames a mention of fewer than 4 characters may name (get_valid_short_usernames). */
const SHORT_USERNAMES = new Set(["gif", "nft", "pic", "ufc", "vid"]);

const isWord = (c: string) => c === "_" || LETTER.test(c) || NUMBER.test(c);
const isHashtagLetter = (c: string) => {
  const code = c.codePointAt(0)!;
  return (
    c === "_" || code === 0x200c || code === 0xb7 || (code >= 0xd80 && code <= 0xdff) || LETTER.test(c) || DIGIT.test(c)
  );
};

/** The character ending just before `i` (a whole surrogate pair), or "" at the start. */
function before(text: string, i: number): string {
  if (i === 0) return "";
  const low = text.charCodeAt(i - 1);
  return low >= 0xdc00 && low <= 0xdfff && i >= 2 ? text.slice(i - 2, i) : text[i - 1]!;
}
const at = (text: string, i: number) => (i < text.length ? String.fromCodePoint(text.codePointAt(i)!) : "");

function* occurrences(text: string, c: string) {
  for (let i = text.indexOf(c); i >= 0; i = text.indexOf(c, i + 1)) yield i;
}

const run = (text: string, from: number, ok: (c: string) => boolean) => {
  let i = from;
  while (i < text.length && ok(text[i]!)) i++;
  return i;
};

function mentions(text: string, out: MessageEntity[]) {
  for (const i of occurrences(text, "@")) {
    if (i > 0 && isWord(before(text, i))) continue;
    const end = run(text, i + 1, (c) => ALNUM_.test(c));
    const name = text.slice(i + 1, end);
    if (name.length < 2 || name.length > 32 || isWord(at(text, end))) continue;
    if (name.length < 4 && !SHORT_USERNAMES.has(name.toLowerCase())) continue;
    out.push({ offset: i, length: end - i, type: "mention" });
  }
}

function botCommands(text: string, out: MessageEntity[]) {
  const stops = (c: string) => isWord(c) || c === "/" || c === "<" || c === ">";
  for (const i of occurrences(text, "/")) {
    if (i > 0 && stops(before(text, i))) continue;
    let end = run(text, i + 1, (c) => ALNUM_.test(c));
    if (end - i - 1 < 1 || end - i - 1 > 64) continue;
    if (text[end] === "@") {
      const nameEnd = run(text, end + 1, (c) => ALNUM_.test(c));
      if (nameEnd - end - 1 < 3 || nameEnd - end - 1 > 32) continue;
      end = nameEnd;
    }
    if (stops(at(text, end))) continue;
    out.push({ offset: i, length: end - i, type: "bot_command" });
  }
}

function hashtags(text: string, out: MessageEntity[]) {
  for (const i of occurrences(text, "#")) {
    if (i > 0 && isHashtagLetter(before(text, i))) continue;
    let end = i + 1;
    let size = 0;
    let limitEnd = -1;
    let letter = false;
    for (let c = at(text, end); c !== "" && isHashtagLetter(c); c = at(text, end)) {
      end += c.length;
      if (size === 255) limitEnd = end;
      if (size !== 256) {
        letter ||= LETTER.test(c);
        size++;
      }
    }
    let tagEnd = limitEnd < 0 ? end : limitEnd;
    if (size < 1) continue;
    if (tagEnd === end && text[end] === "@") {
      let nameEnd = end + 1;
      while (nameEnd < text.length && nameEnd - end < 33 && ALNUM_.test(text[nameEnd]!)) nameEnd++;
      if (nameEnd - end - 1 >= 3) tagEnd = end = nameEnd;
    }
    if (text[end] === "#" || !letter) continue;
    out.push({ offset: i, length: tagEnd - i, type: "hashtag" });
  }
}

function cashtags(text: string, out: MessageEntity[]) {
  for (const i of occurrences(text, "$")) {
    if (i > 0 && (isHashtagLetter(before(text, i)) || before(text, i) === "$")) continue;
    let end = text.startsWith("1INCH", i + 1) ? i + 6 : run(text, i + 1, (c) => c >= "A" && c <= "Z");
    if (end - i - 1 < 1 || end - i - 1 > 8) continue;
    if (text[end] === "@") {
      const nameEnd = run(text, end + 1, (c) => ALNUM_.test(c));
      if (nameEnd - end - 1 >= 3 && nameEnd - end - 1 <= 32) end = nameEnd;
    }
    const next = at(text, end);
    if (next !== "" && (isHashtagLetter(next) || next === "$")) continue;
    out.push({ offset: i, length: end - i, type: "cashtag" });
  }
}

/** http(s)://host.tld[:port][/…], its end trimmed of closing punctuation, as a URL's end is. */
const URL_RE =
  /https?:\/\/[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?)+(?::\d{1,5})?(?:[/?#][^\s<>"]*)?/gi;

function urls(text: string, out: MessageEntity[]) {
  for (const m of text.matchAll(URL_RE)) {
    if (m.index > 0 && isWord(before(text, m.index))) continue;
    let end = m.index + m[0].length;
    while (end > m.index && /[.,:;!?'")\]]/.test(text[end - 1]!)) end--;
    out.push({ offset: m.index, length: end - m.index, type: "url" });
  }
}

/** Formatting that may span a found entity (merge_new_entities: the splittable types). */
const SPLITTABLE = new Set(["bold", "italic", "underline", "strikethrough", "spoiler"]);

/**
 * `entities` with the ones Telegram would find added where no other entity (formatting aside)
 * already is, nor an earlier found one, sorted by offset.
 */
export function withFoundEntities(text: string, entities: MessageEntity[]): MessageEntity[] {
  const found: MessageEntity[] = [];
  mentions(text, found);
  botCommands(text, found);
  hashtags(text, found);
  cashtags(text, found);
  urls(text, found);
  if (found.length === 0) return entities;
  const taken = entities.filter((e) => !SPLITTABLE.has(e.type));
  const added: MessageEntity[] = [];
  const overlaps = (a: MessageEntity, b: MessageEntity) =>
    a.offset < b.offset + b.length && b.offset < a.offset + a.length;
  for (const e of found.sort((a, b) => a.offset - b.offset))
    if (!taken.some((t) => overlaps(t, e))) {
      taken.push(e);
      added.push(e);
    }
  return [...entities, ...added].sort((a, b) => a.offset - b.offset || b.length - a.length);
}
