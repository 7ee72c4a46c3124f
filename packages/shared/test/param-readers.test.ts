import { describe, expect, it } from "vitest";
import {
  boolField,
  decodeJson,
  emptyParams,
  JsonFieldError,
  JsonNumber,
  longField,
  parseWebhookUrl,
  parseWith,
  readFormParams,
  readJsonParams,
  stringField,
  toInteger,
  type JsonObject,
} from "@starpost/shared";
import { METHOD_ROWS } from "@starpost/testkit";

/** A method's parameters read with its owner's row: its params, or the error it answers. */
function parseParams(
  method: keyof typeof METHOD_ROWS,
  raw: Record<string, unknown>,
): { ok: true; params: any } | { ok: false; error: { description: string } } {
  const r = parseWith(METHOD_ROWS[method].params as Parameters<typeof parseWith>[0], raw);
  return r.outcome === "ok" ? { ok: true, params: r.result } : { ok: false, error: r.error };
}

/** The readers against the official server's: td's to_integer, Client.cpp's to_bool and getters. */

const json = (text: string) => {
  const params = emptyParams();
  const complete = readJsonParams(params, text);
  return { params: { ...params }, complete };
};

describe("the raw JSON reader", () => {
  it("keeps strings decoded and every other value as its exact text", () => {
    expect(
      json('{"a":"x\\u00e9\\n","b":1234567890123456789,"c":null,"d":{"k":[1, 2]},"e":true,"f":-1.5e3}').params,
    ).toEqual({
      a: "xé\n",
      b: "1234567890123456789",
      c: "null",
      d: '{"k":[1, 2]}',
      e: "true",
      f: "-1.5e3",
    });
  });

  it("decodes escapes in any string, nested ones kept as text", () => {
    const text = JSON.stringify({ a: 'x"y\\', b: "plain", c: { k: 'q"\n' }, d: "p\nq\u2603😀" });
    expect(json(text).params).toEqual({ a: 'x"y\\', b: "plain", c: JSON.stringify({ k: 'q"\n' }), d: "p\nq\u2603😀" });
    expect(json('{"e":"\\u2603\\ud83d\\ude00\\/\\t"}').params).toEqual({ e: "☃😀/\t" });
    // json_string_decode: an unknown escape is the character after the backslash.
    expect(json('{"f":"\\x\\q"}').params).toEqual({ f: "xq" });
  });

  it("adds nothing for null, arrays, numbers and broken JSON; keeps members read before an error", () => {
    for (const text of ["null", "[1]", "3", "true", "{", "{not json", '{"a"', '{"a":}'])
      expect(json(text)).toEqual({ params: {}, complete: false });
    expect(json('{"a":"1","b":')).toEqual({ params: { a: "1" }, complete: false });
    expect(json('{"a":"1"} trailing')).toEqual({ params: { a: "1" }, complete: false });
    expect(json("")).toEqual({ params: {}, complete: true });
  });

  it("takes a top-level string as the parameter `content`, and the first of a repeated name", () => {
    expect(json('"hello"').params).toEqual({ content: "hello" });
    expect(json('{"a":"1","a":"2","__proto__":"x"}').params).toEqual({ a: "1" });
  });
});

describe("the form reader", () => {
  it("decodes like the reference's urldecode: bad escapes kept, + as space, first occurrence wins", () => {
    const params = emptyParams();
    readFormParams(params, "a=%41%zz+b&flag&a=second&=empty&c=%");
    expect({ ...params }).toEqual({ a: "A%zz b", flag: "", "": "empty", c: "%" });
  });
});

describe("to_integer", () => {
  it("reads an optional minus and the leading digits, wrapping like C++", () => {
    const cases: [string, bigint][] = [
      ["42", 42n],
      ["-42", -42n],
      [" 42", 0n],
      ["+42", 0n],
      ["42abc", 42n],
      ["1e3", 1n],
      ["4.9", 4n],
      ["", 0n],
      ["-", 0n],
      ["2147483647", 2147483647n],
      ["2147483648", -2147483648n],
      ["3000000000", -1294967296n],
      ["4294967297", 1n],
    ];
    for (const [text, value] of cases) expect({ text, value: toInteger(text, 32) }).toEqual({ text, value });
    expect(toInteger("1234567890123456789", 64)).toBe(1234567890123456789n);
    expect(toInteger("9223372036854775808", 64)).toBe(-9223372036854775808n);
  });
});

describe("method parameters read the reference's way", () => {
  it("getUpdates: numbers through to_integer, then clamped (never an error)", () => {
    const read = (p: Record<string, string>) => {
      const r = parseParams("getUpdates", p);
      if (!r.ok) throw r.error;
      return { limit: r.params.limit, timeout: r.params.timeout, offset: r.params.offset };
    };
    expect(read({})).toEqual({ limit: 100, timeout: 0, offset: 0 });
    expect(read({ limit: " 5", timeout: "+7", offset: "12abc" })).toEqual({ limit: 1, timeout: 0, offset: 12 });
    expect(read({ limit: "5.9", timeout: "1e2", offset: "-3" })).toEqual({ limit: 5, timeout: 1, offset: -3 });
    expect(read({ limit: "99999999999", timeout: "x" })).toEqual({ limit: 100, timeout: 0, offset: 0 });
  });

  it("booleans: true, yes, 1 in any case, trimmed of td's white space, are true; anything else is false", () => {
    const drop = (v: string) => {
      const r = parseParams("deleteWebhook", { drop_pending_updates: v });
      if (!r.ok) throw r.error;
      return r.params.drop_pending_updates;
    };
    for (const v of ["true", "TRUE", "True", "yes", "YES", "1", " true", "true ", "\t1\n", "\u0000yes\u000b"])
      expect({ v, b: drop(v) }).toEqual({ v, b: true });
    for (const v of ["false", "0", "no", "t rue", "on", "2", "1.0", "null", "{}", "\u00a0true"])
      expect({ v, b: drop(v) }).toEqual({ v, b: false });
  });

  it("strings: a JSON null or object where a string is expected is its text, as in the reference", () => {
    const r = parseParams("answerCallbackQuery", { callback_query_id: "5", text: '{"a":1}', url: "null" });
    expect(r.ok && r.params).toMatchObject({ callback_query_id: "5", text: '{"a":1}', url: "null" });
  });

  it("ids: answerPreCheckoutQuery reads to_integer<int64> (trailing garbage ignored, every digit kept, missing is 0)", () => {
    const id = (v: string) => {
      const r = parseParams("answerPreCheckoutQuery", { pre_checkout_query_id: v, ok: "true" });
      return r.ok ? r.params.pre_checkout_query_id : r.error.description;
    };
    expect(id("1234567890123456789")).toBe("1234567890123456789");
    expect(id("1234567890123456789abc")).toBe("1234567890123456789");
    expect(id(" 5")).toBe("0");
    expect(id("")).toBe("0");
    expect(id("null")).toBe("0");
  });

  it("refundStarPayment's user_id: max(to_integer<int64>, 0), where 0 is an invalid id", () => {
    const user = (v: string) => {
      const r = parseParams("refundStarPayment", { user_id: v, telegram_payment_charge_id: "c" });
      return r.ok ? r.params.user_id : r.error.description;
    };
    expect(user("77")).toBe(77);
    expect(user("77x")).toBe(77);
    for (const v of ["-77", "x", " 77", "0", ""])
      expect({ v, d: user(v) }).toEqual({ v, d: "Bad Request: invalid user_id specified" });
  });

  it("setWebhook: the secret token's limit counts bytes, and is checked before its characters", () => {
    const r = parseParams("setWebhook", { url: "https://example.com/hook", secret_token: "é".repeat(200) });
    expect(!r.ok && r.error.description).toBe("Bad Request: secret token is too long");
  });
});

describe("webhook URLs", () => {
  it("are checked like td's parse_url before anything else", () => {
    const valid = [
      "https://example.com/hook",
      "example.com",
      "HTTP://Example.com:8080/x?y#z",
      "https://u:p@h.example/x",
      "https://[2001:db8::1]:8443/",
      "https://a.example:080/",
    ];
    const invalid = [
      "https:///hook",
      "//example.com",
      "https://",
      "https://a:0/",
      "https://a:/",
      "https://a:65536/",
      "ftp://a/",
      "https://exa mple.com/",
      "https://[zz]/",
      "https://a<b/",
    ];
    for (const url of valid) expect({ url, ok: parseWebhookUrl(url) !== undefined }).toEqual({ url, ok: true });
    for (const url of invalid) expect({ url, ok: parseWebhookUrl(url) !== undefined }).toEqual({ url, ok: false });
  });
});

describe("td's JSON reader (JsonBuilder.cpp's json_decode), under every JSON-valued parameter", () => {
  it("keeps a number as its text: any run of -+.eE0-9", () => {
    const v = decodeJson("[1, -0, +5, 05, 1.0, 1e3, .5, 1-2]") as JsonNumber[];
    expect(v.map((n) => n.text)).toEqual(["1", "-0", "+5", "05", "1.0", "1e3", ".5", "1-2"]);
    expect(v.every((n) => n instanceof JsonNumber)).toBe(true);
  });

  it("reads an unknown escape as the character after the backslash, and a bad \\u as an error", () => {
    expect(decodeJson('"a\\xb\\\'c\\/\\u00e9"')).toBe("axb'c/é");
    expect(decodeJson('"\\u12"')).toBeUndefined();
  });

  it("gives a getter an object's first member of a name", () => {
    expect(decodeJson('{"a":1,"a":2,"__proto__":3}')).toEqual(
      Object.assign(Object.create(null), { a: new JsonNumber("1"), ["__proto__"]: new JsonNumber("3") }),
    );
  });

  it("fails on trailing text, a trailing comma and depth beyond 100", () => {
    for (const text of ["[1] x", "[1,]", "{", "", "nul", "[".repeat(102) + "]".repeat(102)])
      expect({ text, v: decodeJson(text) }).toEqual({ text, v: undefined });
    expect(decodeJson(" \t\r\n[" + "[".repeat(99) + "]".repeat(99) + "] ")).toBeDefined();
  });

  it("field getters answer td's texts", () => {
    const o = decodeJson('{"n":5,"s":"05","b":true,"x":1.5}') as JsonObject;
    expect(longField(o, "n")).toBe(5n);
    expect(longField(o, "s")).toEqual(new JsonFieldError('Field "s" must be a valid Number'));
    expect(longField(o, "b")).toEqual(new JsonFieldError('Field "b" must be a Number'));
    expect(longField(o, "x")).toEqual(new JsonFieldError('Field "x" must be a valid Number'));
    expect(longField(o, "missing")).toEqual(new JsonFieldError('Can\'t find field "missing"'));
    expect(stringField(o, "n")).toBe("5");
    expect(stringField(o, "b")).toEqual(new JsonFieldError('Field "b" must be of type String'));
    expect(boolField(o, "b")).toBe(true);
    expect(boolField(o, "n")).toEqual(new JsonFieldError('Field "n" must be of type Boolean'));
    expect(boolField(o, "missing", false)).toBe(false);
  });
});
