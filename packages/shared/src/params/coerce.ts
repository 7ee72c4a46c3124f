import { z } from "zod";
import { Errors, type BotApiError } from "../errors.ts";
import { fail } from "./issues.ts";
import { toInteger, toIntegerSafe } from "./integers.ts";

/**
 * Parameter readers as the official server's getters read them (telegram-bot-api Client.cpp and
 * td/utils/misc.h). Every value arrives as text (see raw.ts): a query string or form value, a
 * decoded JSON string, or the source text of any other JSON value. An absent parameter and an
 * empty one are the same thing, as in the reference's `Query::arg`. Error texts come from the
 * error registry.
 *
 * The optional readers end in `.optional()`: zod then passes an absent parameter through without
 * running the reader (the same undefined it would give), and most of a method's parameters are
 * absent on any call (sendInvoice's validation took half the time without it).
 */

/** td's is_space, trimmed from both ends by td::trim. */
const TRIMMED = /^[ \t\r\n\0\v]+|[ \t\r\n\0\v]+$/g;

const READERS = new WeakMap<z.ZodType, string>();

/** Names the reader a schema is (docs/request-front.md's getter table shows it beside the reference's getter). */
export function reader<T extends z.ZodType>(name: string, schema: T): T {
  READERS.set(schema, name);
  return schema;
}

/** The reader a parameter's schema was made with, if it was named (looking through a transform or `.optional()` added after it). */
export function readerOf(schema: z.ZodType): string | undefined {
  type Def = { in?: z.ZodType; innerType?: z.ZodType };
  for (let cur: z.ZodType | undefined = schema; cur;) {
    const name = READERS.get(cur);
    if (name) return name;
    const def = cur._zod.def as Def;
    cur = def.in ?? def.innerType;
  }
  return undefined;
}

const isAbsent = (v: unknown) => v === undefined || v === "";

/** Values that did not come through the raw reader (a service called directly) read like JSON text. */
export function asText(v: unknown): string | undefined {
  if (v === undefined) return undefined;
  return typeof v === "string" ? v : JSON.stringify(v);
}

export const toInt32 = (text: string) => Number(toInteger(text, 32));

/** A required string parameter; missing or empty gives `parameter "<name>" is required`. */
export const requiredString = (name: string) =>
  reader(
    "requiredString",
    z.preprocess(asText, z.string().optional()).transform((s, ctx) => s || fail(ctx, Errors.paramRequired(name))),
  );

/** An optional string parameter ("" counts as absent). A JSON `null` or object is its text, as in the reference. */
export const optionalString = () =>
  reader(
    "optionalString",
    z.preprocess((v) => (isAbsent(v) ? undefined : asText(v)), z.string().optional()).optional(),
  );

/**
 * An int64 read with `td::to_integer_safe<int64>`: the text must be exactly an integer's decimal
 * form within int64 ("012", "+1", "-0", " 1" and "1.5" all fail, each with `error`). Absent:
 * undefined.
 */
export const strictInt64 = (error: () => BotApiError) =>
  reader(
    "strictInt64",
    z
      .preprocess((v) => (isAbsent(v) ? undefined : asText(v)), z.string().optional())
      .transform((s, ctx) => {
        if (s === undefined) return undefined;
        const n = toIntegerSafe(s);
        return n === undefined ? fail(ctx, error()) : Number(n);
      })
      .optional(),
  );

/**
 * A chat as the reference's `check_chat` reads it (Client.cpp at 01a3679, line 8198): an
 * @username as given, anything else through `td::to_integer<int64>` (line 8210), so "0501" and
 * "501abc" name chat 501 and " 501" names chat 0, which no chat is. Empty is absent ("chat_id is
 * empty", line 8201). `text` is the value as given, which a business connection reads its own way.
 */
export const chatIdParam = () =>
  reader(
    "chatIdParam",
    z
      .preprocess(
        (v) => {
          if (isAbsent(v)) return undefined;
          const text = asText(v)!;
          return { id: text.startsWith("@") ? text : toInteger(text, 64).toString(), text };
        },
        z.object({ id: z.string(), text: z.string() }).optional(),
      )
      .optional(),
  );

/**
 * An int32 read like the reference's `get_integer_arg`: absent means the default (undefined
 * here), anything else goes through `to_integer`, never an error. Callers clamp.
 */
export const looseInt = () =>
  reader(
    "looseInt",
    z.preprocess((v) => (isAbsent(v) ? undefined : toInt32(asText(v)!)), z.number().optional()).optional(),
  );

/**
 * An int64 id read with `to_integer<int64>` (trailing garbage ignored, " 5" and "" are 0), kept as
 * its decimal text so no digit is lost. The reference reads query ids this way (answerCallbackQuery,
 * answerPreCheckoutQuery): a missing id is 0, which names no query.
 */
export const int64Id = () =>
  reader(
    "int64Id",
    z.preprocess((v) => toInteger(isAbsent(v) ? "" : asText(v)!, 64).toString(), z.string()),
  );

/**
 * The reference's `to_bool` (Client.cpp at 01a3679, line 9357): lower-cased and trimmed of space,
 * tab, CR, LF, NUL and VT, then "true", "yes" or "1" is true, anything else false.
 */
export const boolParam = () =>
  reader(
    "boolParam",
    z
      .preprocess(
        (v) => (isAbsent(v) ? undefined : ["true", "yes", "1"].includes(asText(v)!.toLowerCase().replace(TRIMMED, ""))),
        z.boolean().optional(),
      )
      .optional(),
  );
