/**
 * JSON as td reads it (tdutils/td/utils/JsonBuilder.cpp, `json_decode` and `json_string_decode`),
 * which every JSON-valued Bot API parameter goes through in the reference, and which is not
 * JSON.parse:
 * - a number is any run of `-+.eE0-9` kept as its text (`+1`, `01`, `1.0`, `.5` are all numbers);
 *   each getter reads that text by its own rule (`to_integer_safe`, …);
 * - an unknown escape stands for the character after the backslash (`\x` is `x`);
 * - an object's first member of a name is the one a getter finds;
 * - nesting deeper than 100 is an error; only space, tab, CR and LF are white space.
 */

import { toIntegerSafe } from "./integers.ts";

/** A JSON number as its source text. */
export class JsonNumber {
  constructor(readonly text: string) {}
}
export type JsonObject = { readonly [name: string]: JsonValue };
export type JsonValue = null | boolean | string | JsonNumber | JsonValue[] | JsonObject;

export class JsonStop extends Error {}

const NUMBER_CHAR = /[-+.eE0-9]/;
/** A number starts with one of these (do_json_decode's cases); it may go on with e and E. */
const NUMBER_START = /[-+.0-9]/;
const ESCAPES: Record<string, string> = { b: "\b", f: "\f", n: "\n", r: "\r", t: "\t" };
const MAX_DEPTH = 100;
const NONE = -2;

const hex4 = (s: string) => (/^[0-9a-fA-F]{4}$/.test(s) ? Number.parseInt(s, 16) : -1);

/** A cursor over JSON text with td's rules; it throws JsonStop at the first syntax error. */
export class JsonCursor {
  i = 0;
  /** The next backslash at or after `i` (NONE: there is none left), kept across strings. */
  private slash = -1;
  constructor(private readonly s: string) {}
  done() {
    return this.i >= this.s.length;
  }
  peek() {
    return this.s[this.i];
  }
  ws() {
    while (this.i < this.s.length && " \t\r\n".includes(this.s[this.i]!)) this.i++;
  }
  accept(c: string) {
    if (this.s[this.i] !== c) return false;
    this.i++;
    return true;
  }
  expect(c: string) {
    if (!this.accept(c)) throw new JsonStop();
  }
  string(): string {
    this.expect('"');
    let out = "";
    // Plain runs are copied as slices; the next quote and backslash are found once, not per character.
    let quote = -1;
    for (;;) {
      if (quote < this.i) quote = this.s.indexOf('"', this.i);
      if (quote < 0) throw new JsonStop();
      if (this.slash !== NONE && this.slash < this.i) this.slash = this.s.indexOf("\\", this.i);
      if (this.slash === -1) this.slash = NONE;
      const slash = this.slash;
      if (slash === NONE || slash > quote) {
        out += this.s.slice(this.i, quote);
        this.i = quote + 1;
        return out;
      }
      out += this.s.slice(this.i, slash);
      this.i = slash + 1;
      const e = this.s[this.i++];
      if (e === undefined) throw new JsonStop();
      if (e !== "u") {
        out += ESCAPES[e] ?? e;
        continue;
      }
      const code = hex4(this.s.slice(this.i, this.i + 4));
      if (code < 0) throw new JsonStop();
      this.i += 4;
      out += String.fromCharCode(code);
    }
  }
  /** Reads one value (after white space). */
  value(depth = MAX_DEPTH): JsonValue {
    if (depth < 0) throw new JsonStop();
    this.ws();
    const c = this.peek();
    if (c === undefined) throw new JsonStop();
    if (c === "t") return this.literal("true", true);
    if (c === "f") return this.literal("false", false);
    if (c === "n") return this.literal("null", null);
    if (c === '"') return this.string();
    if (NUMBER_START.test(c)) {
      const start = this.i;
      while (!this.done() && NUMBER_CHAR.test(this.peek()!)) this.i++;
      return new JsonNumber(this.s.slice(start, this.i));
    }
    if (c === "[") {
      const items: JsonValue[] = [];
      this.members("]", () => items.push(this.value(depth - 1)));
      return items;
    }
    if (c !== "{") throw new JsonStop();
    const object = Object.create(null) as Record<string, JsonValue>;
    this.members("}", () => {
      const name = this.string();
      this.ws();
      this.expect(":");
      const v = this.value(depth - 1);
      if (!Object.hasOwn(object, name)) object[name] = v;
    });
    return object;
  }
  /** Skips one value and returns its exact text. */
  rawValue(): string {
    const start = this.i;
    this.value();
    return this.s.slice(start, this.i);
  }
  private literal<T>(word: string, v: T): T {
    if (!this.s.startsWith(word, this.i)) throw new JsonStop();
    this.i += word.length;
    return v;
  }
  private members(close: string, read: () => void) {
    this.i++;
    this.ws();
    if (this.accept(close)) return;
    for (;;) {
      this.ws();
      read();
      this.ws();
      if (this.accept(close)) return;
      this.expect(",");
    }
  }
}

/** td's `json_decode`: one value and nothing after it but white space; undefined when it fails. */
export function decodeJson(text: string): JsonValue | undefined {
  const p = new JsonCursor(text);
  try {
    const v = p.value();
    p.ws();
    return p.done() ? v : undefined;
  } catch (err) {
    if (err instanceof JsonStop) return undefined;
    throw err;
  }
}

export const isJsonObject = (v: JsonValue | undefined): v is JsonObject =>
  typeof v === "object" && v !== null && !Array.isArray(v) && !(v instanceof JsonNumber);

/** A field getter's failure: td's own text ("Can't find field \"amount\"", …), which callers prefix. */
export class JsonFieldError {
  constructor(readonly message: string) {}
}

export const isFieldError = (v: unknown): v is JsonFieldError => v instanceof JsonFieldError;

/**
 * td's `get_required_long_field` / `get_optional_long_field` (JsonBuilder.cpp): a Number's text
 * or a String read with `to_integer_safe<int64>`.
 */
export function longField(o: JsonObject, name: string, fallback?: bigint): bigint | JsonFieldError {
  const v = Object.hasOwn(o, name) ? o[name]! : undefined;
  if (v === undefined) return fallback ?? new JsonFieldError(`Can't find field "${name}"`);
  const text = typeof v === "string" ? v : v instanceof JsonNumber ? v.text : undefined;
  if (text === undefined) return new JsonFieldError(`Field "${name}" must be a Number`);
  return toIntegerSafe(text) ?? new JsonFieldError(`Field "${name}" must be a valid Number`);
}

/** td's `get_required_int_field` / `get_optional_int_field`: as longField, within int32. */
export function intField(o: JsonObject, name: string, fallback?: number): number | JsonFieldError {
  const n = longField(o, name, fallback === undefined ? undefined : BigInt(fallback));
  if (n instanceof JsonFieldError) return n;
  return n >= -(2n ** 31n) && n < 2n ** 31n ? Number(n) : new JsonFieldError(`Field "${name}" must be a valid Number`);
}

/** td's `get_required_string_field` / `get_optional_string_field`: a String, or a Number's text. */
export function stringField(o: JsonObject, name: string, fallback?: string): string | JsonFieldError {
  const v = Object.hasOwn(o, name) ? o[name]! : undefined;
  if (v === undefined) return fallback ?? new JsonFieldError(`Can't find field "${name}"`);
  if (typeof v === "string") return v;
  if (v instanceof JsonNumber) return v.text;
  return new JsonFieldError(`Field "${name}" must be of type String`);
}

/** td's `get_optional_bool_field` / `get_required_bool_field`: a Boolean only. */
export function boolField(o: JsonObject, name: string, fallback?: boolean): boolean | JsonFieldError {
  const v = Object.hasOwn(o, name) ? o[name]! : undefined;
  if (v === undefined) return fallback ?? new JsonFieldError(`Can't find field "${name}"`);
  return typeof v === "boolean" ? v : new JsonFieldError(`Field "${name}" must be of type Boolean`);
}
