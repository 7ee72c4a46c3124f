/**
 * parse_mode → text + entities, following td's parsers (td/telegram/MessageEntity.cpp:
 * parse_html, parse_markdown_v2, parse_markdown) for the common styles: bold, italic, underline,
 * strikethrough, spoiler, code, pre and text_link. Offsets and lengths are UTF-16 code units (a JS
 * string's own); error positions are UTF-8 byte offsets of the input, as td reports them. An
 * error is a registry entry (`Errors.entity…`), td's text after "can't parse entities: ".
 */
import { Errors, type BotApiError } from "@starpost/shared";

export interface MessageEntity {
  offset: number;
  length: number;
  type: string;
  url?: string;
  language?: string;
  user?: unknown;
  custom_emoji_id?: string;
}

/** The field each entity type carries beyond offset, length and type (JsonEntity, Client.cpp at 01a3679, line 525). */
const TYPE_FIELD: Record<string, "url" | "language" | "user" | "custom_emoji_id"> = {
  pre: "language",
  text_link: "url",
  text_mention: "user",
  custom_emoji: "custom_emoji_id",
};

/** An entity as JsonEntity writes it: offset, length, type, then its type's own field when it has one. */
export function entityJson(e: MessageEntity): MessageEntity {
  const out: MessageEntity = { offset: e.offset, length: e.length, type: e.type };
  const field = TYPE_FIELD[e.type];
  if (field && e[field] !== undefined) (out as unknown as Record<string, unknown>)[field] = e[field];
  return out;
}

export type ParsedText = { text: string; entities: MessageEntity[] } | { error: BotApiError };

export type ParseMode = "HTML" | "MarkdownV2" | "Markdown";

/** Carries the registry error out of the parser's depths to parseEntities. */
class EntityError extends Error {
  constructor(readonly error: BotApiError) {
    super(error.description);
  }
}
const fail = (error: BotApiError): never => {
  throw new EntityError(error);
};
const byteOffset = (s: string, index: number) => Buffer.byteLength(s.slice(0, index), "utf8");

/** td's check_url, roughly: a host with a dot (or a tg:/ton: link); no scheme means http. */
function checkUrl(raw: string): string | undefined {
  const url = raw.trim();
  if (url === "") return undefined;
  const hasScheme = /^[a-z][a-z0-9+.-]*:/i.test(url);
  try {
    const parsed = new URL(hasScheme ? url : `http://${url}`);
    if (parsed.protocol === "tg:" || parsed.protocol === "ton:") return parsed.href;
    if (parsed.protocol !== "http:" && parsed.protocol !== "https:") return undefined;
    if (!parsed.hostname.includes(".")) return undefined;
    return parsed.href;
  } catch {
    return undefined;
  }
}

/** Entities in td's order: by offset, then the longer (outer) one first. */
const sorted = (entities: MessageEntity[]) => entities.sort((a, b) => a.offset - b.offset || b.length - a.length);

export function parseEntities(input: string, mode: ParseMode): ParsedText {
  try {
    if (mode === "HTML") return parseHtml(input);
    if (mode === "MarkdownV2") return parseMarkdownV2(input);
    return parseMarkdown(input);
  } catch (err) {
    if (err instanceof EntityError) return { error: err.error };
    throw err;
  }
}

const HTML_TAGS: Record<string, string | undefined> = {
  b: "bold",
  strong: "bold",
  i: "italic",
  em: "italic",
  u: "underline",
  ins: "underline",
  s: "strikethrough",
  strike: "strikethrough",
  del: "strikethrough",
  "tg-spoiler": "spoiler",
  span: "spoiler",
  code: "code",
  pre: "pre",
  a: "text_link",
  blockquote: "blockquote",
  "tg-emoji": undefined,
};
const HTML_ENTITIES: Record<string, string> = { lt: "<", gt: ">", amp: "&", quot: '"' };
const isSpace = (c: string | undefined) => c === " " || c === "\t" || c === "\r" || c === "\n";
const isNameChar = (c: string | undefined) => c !== undefined && /[A-Za-z0-9_-]/.test(c);

function decodeHtmlEntity(s: string, i: number): { value: string; next: number } | undefined {
  const m = /^&(#x[0-9a-f]{1,6}|#\d{1,7}|[a-z]{2,8});/i.exec(s.slice(i, i + 12));
  if (!m) return undefined;
  const body = m[1]!;
  let value: string | undefined;
  if (body.startsWith("#x") || body.startsWith("#X")) value = safeCodePoint(Number.parseInt(body.slice(2), 16));
  else if (body.startsWith("#")) value = safeCodePoint(Number.parseInt(body.slice(1), 10));
  else value = HTML_ENTITIES[body];
  return value === undefined ? undefined : { value, next: i + m[0].length };
}
const safeCodePoint = (n: number) =>
  n > 0 && n <= 0x10ffff && (n < 0xd800 || n > 0xdfff) ? String.fromCodePoint(n) : undefined;

function parseHtml(s: string): ParsedText {
  let text = "";
  const entities: MessageEntity[] = [];
  const open: { tag: string; offset: number; url?: string; language?: string }[] = [];
  let i = 0;
  while (i < s.length) {
    const c = s[i]!;
    if (c === "&") {
      const decoded = decodeHtmlEntity(s, i);
      if (decoded) {
        text += decoded.value;
        i = decoded.next;
        continue;
      }
    }
    if (c !== "<") {
      text += c;
      i++;
      continue;
    }
    const at = byteOffset(s, i);
    if (s[i + 1] === "/") {
      if (open.length === 0) fail(Errors.entityUnexpectedEndTag(at));
      let j = i + 2;
      while (j < s.length && !isSpace(s[j]) && s[j] !== ">") j++;
      const name = s.slice(i + 2, j).toLowerCase();
      while (isSpace(s[j])) j++;
      if (s[j] !== ">") fail(Errors.entityUnclosedEndTag(at));
      const top = open.pop()!;
      if (name !== "" && name !== top.tag) fail(Errors.entityUnmatchedEndTag(at, top.tag, name));
      closeHtmlEntity(top, text.length, entities, open);
      i = j + 1;
      continue;
    }
    let j = i + 1;
    while (j < s.length && !isSpace(s[j]) && s[j] !== ">") j++;
    if (j >= s.length) fail(Errors.entityUnclosedStartTag(at));
    const tag = s.slice(i + 1, j).toLowerCase();
    if (!(tag in HTML_TAGS)) fail(Errors.entityUnsupportedStartTag(tag, at));
    const attrs: Record<string, string> = {};
    for (;;) {
      while (isSpace(s[j])) j++;
      if (j >= s.length) fail(Errors.entityUnclosedStartTagNamed(tag, at));
      if (s[j] === ">") break;
      const nameStart = j;
      while (isNameChar(s[j])) j++;
      if (j === nameStart) fail(Errors.entityEmptyAttributeName(tag, at));
      const attr = s.slice(nameStart, j).toLowerCase();
      while (isSpace(s[j])) j++;
      if (s[j] !== "=") {
        attrs[attr] = "";
        continue;
      }
      j++;
      while (isSpace(s[j])) j++;
      if (j >= s.length) fail(Errors.entityUnclosedStartTagNamed(tag, at));
      let value = "";
      if (s[j] === '"' || s[j] === "'") {
        const quote = s[j]!;
        const end = s.indexOf(quote, j + 1);
        if (end < 0) fail(Errors.entityUnclosedStartTag(at));
        value = decodeAttribute(s.slice(j + 1, end));
        j = end + 1;
      } else {
        const start = j;
        while (j < s.length && !isSpace(s[j]) && s[j] !== ">") j++;
        if (j >= s.length) fail(Errors.entityNameTokenEnd(byteOffset(s, start)));
        value = s.slice(start, j);
      }
      attrs[attr] = value;
    }
    if (tag === "span" && attrs.class !== "tg-spoiler") fail(Errors.entitySpanClass(at));
    const entry: (typeof open)[number] = { tag, offset: text.length };
    if (tag === "a" && attrs.href !== undefined) entry.url = attrs.href;
    if (tag === "code" && attrs.class?.startsWith("language-")) entry.language = attrs.class.slice("language-".length);
    open.push(entry);
    i = j + 1;
  }
  if (open.length > 0) fail(Errors.entityEndTagMissing(open.at(-1)!.tag));
  return { text, entities: sorted(mergePreCode(entities)) };
}

function decodeAttribute(v: string): string {
  let out = "";
  for (let i = 0; i < v.length;) {
    const d = v[i] === "&" ? decodeHtmlEntity(v, i) : undefined;
    if (d) {
      out += d.value;
      i = d.next;
    } else out += v[i++];
  }
  return out;
}

function closeHtmlEntity(
  top: { tag: string; offset: number; url?: string; language?: string },
  end: number,
  entities: MessageEntity[],
  open: { tag: string }[],
) {
  const length = end - top.offset;
  const type = HTML_TAGS[top.tag];
  if (length === 0 || type === undefined) return;
  if (type === "text_link") {
    const url = top.url === undefined ? undefined : checkUrl(top.url);
    if (url !== undefined) entities.push({ type, offset: top.offset, length, url });
    return;
  }
  // <pre><code class="language-x"> is one pre entity with a language (td merges them).
  if (type === "code" && top.language !== undefined && open.at(-1)?.tag === "pre") {
    entities.push({ type: "pre", offset: top.offset, length, language: top.language });
    return;
  }
  entities.push({ type, offset: top.offset, length });
}

function mergePreCode(entities: MessageEntity[]): MessageEntity[] {
  return entities.filter(
    (e) =>
      !(
        e.type === "pre" &&
        e.language === undefined &&
        entities.some((o) => o !== e && o.type === "pre" && o.offset === e.offset && o.length === e.length)
      ),
  );
}

const V2_RESERVED = "_*[]()~`>#+-=|{}.!";
const V2_NAMES: Record<string, string> = {
  bold: "Bold",
  italic: "Italic",
  underline: "Underline",
  strikethrough: "Strikethrough",
  spoiler: "Spoiler",
  code: "Code",
  pre: "Pre",
  precode: "PreCode",
  text_link: "TextUrl",
};

/** Skips the language of a ``` block (td: a word followed by more text) and one leading line break. */
function readPreStart(s: string, i: number): { i: number; language?: string } {
  let end = i;
  while (end < s.length && !isSpace(s[end]) && s[end] !== "`") end++;
  let language: string | undefined;
  if (end !== i && end < s.length && s[end] !== "`") {
    language = s.slice(i, end);
    i = end;
  }
  if (s[i] === "\n" || s[i] === "\r") i += (s[i + 1] === "\n" || s[i + 1] === "\r") && s[i] !== s[i + 1] ? 2 : 1;
  return { i, language };
}

function parseMarkdownV2(s: string): ParsedText {
  let text = "";
  const entities: MessageEntity[] = [];
  const open: { kind: string; at: number; offset: number; language?: string }[] = [];
  let i = 0;
  while (i < s.length) {
    const c = s[i]!;
    const next = s.charCodeAt(i + 1);
    if (c === "\\" && next > 0 && next <= 126) {
      text += s[i + 1];
      i += 2;
      continue;
    }
    const top = open.at(-1);
    const inCode = top !== undefined && (top.kind === "code" || top.kind === "pre" || top.kind === "precode");
    if (!V2_RESERVED.includes(c) || (inCode && c !== "`")) {
      text += c;
      i++;
      continue;
    }
    let isEnd = false;
    if (top) {
      isEnd = {
        bold: c === "*",
        italic: c === "_" && s[i + 1] !== "_",
        underline: c === "_" && s[i + 1] === "_",
        strikethrough: c === "~",
        spoiler: c === "|" && s[i + 1] === "|",
        code: c === "`",
        pre: c === "`" && s[i + 1] === "`" && s[i + 2] === "`",
        precode: c === "`" && s[i + 1] === "`" && s[i + 2] === "`",
        text_link: c === "]",
      }[top.kind]!;
    }
    if (!isEnd) {
      const at = byteOffset(s, i);
      let kind: string;
      let language: string | undefined;
      if (c === "_" && s[i + 1] === "_") {
        kind = "underline";
        i += 2;
      } else if (c === "|" && s[i + 1] === "|") {
        kind = "spoiler";
        i += 2;
      } else if (c === "`" && s[i + 1] === "`" && s[i + 2] === "`") {
        const start = readPreStart(s, i + 3);
        kind = start.language === undefined ? "pre" : "precode";
        language = start.language;
        i = start.i;
      } else {
        const simple: Record<string, string> = {
          _: "italic",
          "*": "bold",
          "~": "strikethrough",
          "[": "text_link",
          "`": "code",
        };
        if (!(c in simple)) fail(Errors.entityCharReserved(c));
        kind = simple[c]!;
        i++;
      }
      open.push({ kind, at, offset: text.length, ...(language !== undefined ? { language } : {}) });
      continue;
    }
    const entity = open.pop()!;
    const length = text.length - entity.offset;
    i +=
      entity.kind === "underline" || entity.kind === "spoiler"
        ? 2
        : entity.kind === "pre" || entity.kind === "precode"
          ? 3
          : 1;
    if (entity.kind === "text_link") {
      let url: string;
      if (s[i] !== "(") url = text.slice(entity.offset);
      else {
        const urlStart = i + 1;
        url = "";
        i++;
        while (i < s.length && s[i] !== ")") {
          const n = s.charCodeAt(i + 1);
          if (s[i] === "\\" && n > 0 && n <= 126) {
            url += s[i + 1];
            i += 2;
          } else url += s[i++];
        }
        if (s[i] !== ")") fail(Errors.entityUrlEnd(byteOffset(s, urlStart)));
        i++;
      }
      const checked = checkUrl(url);
      if (length > 0 && checked !== undefined)
        entities.push({ type: "text_link", offset: entity.offset, length, url: checked });
      continue;
    }
    if (length === 0) continue;
    if (entity.kind === "precode")
      entities.push({ type: "pre", offset: entity.offset, length, language: entity.language! });
    else entities.push({ type: entity.kind, offset: entity.offset, length });
  }
  if (open.length > 0) {
    const top = open.at(-1)!;
    fail(Errors.entityKindEnd(V2_NAMES[top.kind]!, top.at));
  }
  return { text, entities: sorted(entities) };
}

/** The legacy Markdown: *bold*, _italic_, `code`, ```pre```, [text](url); no nesting. */
function parseMarkdown(s: string): ParsedText {
  let text = "";
  const entities: MessageEntity[] = [];
  let i = 0;
  while (i < s.length) {
    const c = s[i]!;
    if (c === "\\" && "_*`[".includes(s[i + 1] ?? "\0")) {
      text += s[i + 1];
      i += 2;
      continue;
    }
    if (!"_*`[".includes(c)) {
      text += c;
      i++;
      continue;
    }
    const begin = i;
    const endChar = c === "[" ? "]" : c;
    let isPre = false;
    let language: string | undefined;
    i++;
    if (c === "`" && s[i] === "`" && s[i + 1] === "`") {
      isPre = true;
      const start = readPreStart(s, i + 2);
      language = start.language;
      i = start.i;
    }
    const offset = text.length;
    while (i < s.length && (s[i] !== endChar || (isPre && !(s[i + 1] === "`" && s[i + 2] === "`")))) text += s[i++];
    if (i >= s.length) fail(Errors.entityEnd(byteOffset(s, begin)));
    const length = text.length - offset;
    if (c === "[") {
      let url: string;
      if (s[i + 1] !== "(") url = s.slice(begin + 1, i);
      else {
        i += 2;
        url = "";
        while (i < s.length && s[i] !== ")") url += s[i++];
      }
      const checked = checkUrl(url);
      if (length > 0 && checked !== undefined) entities.push({ type: "text_link", offset, length, url: checked });
    } else if (length > 0) {
      if (isPre) entities.push({ type: "pre", offset, length, ...(language !== undefined ? { language } : {}) });
      else entities.push({ type: c === "_" ? "italic" : c === "*" ? "bold" : "code", offset, length });
    }
    i += isPre ? 3 : 1;
  }
  return { text, entities: sorted(entities) };
}
