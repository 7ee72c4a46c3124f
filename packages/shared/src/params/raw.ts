/**
 * Raw parameters as the official server's HTTP reader (td/net/HttpReader.cpp) keeps them: one flat
 * map of name → text, filled from the query string first and the body after, the first occurrence
 * of a name winning. A JSON body's string values are decoded; every other JSON value is kept as its
 * exact source text (`5`, `1e3`, `null`, `{"a":1}`, a 19-digit id), so each method reads each value
 * by its own rule, as the reference does, and no number loses digits on the way. The map travels
 * to the owning service as it is.
 */
import { Errors } from "../errors.ts";
import { JsonCursor, JsonStop } from "./json.ts";

export type RawParams = Record<string, string>;

/**
 * Names that are never Bot API parameters and that JSON parsers downstream refuse (prototype
 * pollution guards): dropped like any other unknown parameter.
 */
const UNSAFE_NAMES = new Set(["__proto__", "constructor", "prototype"]);

export function emptyParams(): RawParams {
  return Object.create(null) as RawParams;
}

/**
 * How many parameters one request may still carry (the gateway's GATEWAY_MAX_PARAMS). Every one
 * read counts, repeated names too, and reading stops at the first beyond the bound with 413: what
 * a request costs to read, log and forward grows with its parameters, and no method reads more
 * than a few dozen.
 */
export class ParamBudget {
  constructor(private left: number) {}

  take(): void {
    if (--this.left < 0) throw Errors.tooManyParams();
  }
}

/** Adds one parameter unless the name is already there (the reference's `Query::arg` finds the first). */
export function addParam(params: RawParams, name: string, value: string): void {
  if (!UNSAFE_NAMES.has(name) && !Object.hasOwn(params, name)) params[name] = value;
}

/**
 * A file part's bytes are dropped (starpost stores no file); its name stays, under a prefix no
 * form field can be confused with, so a method can tell a file was sent (`hasFile`).
 */
const FILE_PREFIX = "\u0000file:";

export function addFilePart(params: RawParams, name: string): void {
  addParam(params, FILE_PREFIX + name, "");
}

/**
 * The reference's get_webhook_certificate (Client.cpp at 01a3679, line 15976): a file part named
 * `name`, or the text `attach://<part>` naming a file part.
 */
export function hasFile(params: Record<string, unknown>, name: string): boolean {
  if (Object.hasOwn(params, FILE_PREFIX + name)) return true;
  const v = params[name];
  return typeof v === "string" && v.startsWith("attach://") && Object.hasOwn(params, FILE_PREFIX + v.slice(9));
}

const hex = (c: number) =>
  c >= 48 && c <= 57 ? c - 48 : c >= 65 && c <= 70 ? c - 55 : c >= 97 && c <= 102 ? c - 87 : 16;

/** The reference's urldecode: `%XX` decoded where both digits are hex, anything else kept; `+` is a space. */
function urldecode(bytes: Buffer): string {
  const out = Buffer.allocUnsafe(bytes.length);
  let n = 0;
  for (let i = 0; i < bytes.length; i++) {
    const c = bytes[i]!;
    if (c === 0x25 && i + 2 < bytes.length) {
      const high = hex(bytes[i + 1]!);
      const low = hex(bytes[i + 2]!);
      if (high < 16 && low < 16) {
        out[n++] = high * 16 + low;
        i += 2;
        continue;
      }
    }
    out[n++] = c === 0x2b ? 0x20 : c;
  }
  return out.subarray(0, n).toString("utf8");
}

/** `a=1&b=2` (a query string or a urlencoded body): fails only beyond `budget`; a name without `=` has the value "". */
export function readFormParams(params: RawParams, text: Buffer | string, budget?: ParamBudget): void {
  const bytes = typeof text === "string" ? Buffer.from(text, "latin1") : text;
  let start = 0;
  while (start < bytes.length) {
    budget?.take();
    let end = bytes.indexOf(0x26, start);
    if (end < 0) end = bytes.length;
    const pair = bytes.subarray(start, end);
    const eq = pair.indexOf(0x3d);
    if (eq < 0) addParam(params, urldecode(pair), "");
    else addParam(params, urldecode(pair.subarray(0, eq)), urldecode(pair.subarray(eq + 1)));
    start = end + 1;
  }
}

/**
 * A JSON body the reference's way (`parse_json_parameters`): a top-level object's members become
 * parameters (strings decoded, other values as their source text); a top-level string becomes the
 * parameter `content`. On the first syntax error reading stops and the members read so far are
 * kept: `null`, an array, a number or broken JSON add nothing. Returns false when reading stopped
 * early, which the reference only logs.
 */
export function readJsonParams(params: RawParams, text: string, budget?: ParamBudget): boolean {
  const p = new JsonCursor(text);
  try {
    p.ws();
    if (p.done()) return true;
    if (p.peek() === '"') {
      const content = p.string();
      if (!p.done()) return false;
      budget?.take();
      addParam(params, "content", content);
      return true;
    }
    p.expect("{");
    for (;;) {
      p.ws();
      if (p.peek() === "}") {
        p.i++;
        p.ws();
        return p.done();
      }
      if (p.done()) return false;
      budget?.take();
      const name = p.string();
      p.ws();
      p.expect(":");
      p.ws();
      const value = p.peek() === '"' ? p.string() : p.rawValue();
      addParam(params, name, value);
      p.ws();
      if (p.peek() !== "}" && !p.accept(",")) return false;
    }
  } catch (err) {
    if (err instanceof JsonStop) return false;
    throw err;
  }
}
