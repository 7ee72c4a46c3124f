import { createHash } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import type { Redis } from "ioredis";

/** A value passed to a script: Redis sends both as strings. */
export type LuaValue = string | number;

/**
 * One named place in a script's KEYS or ARGV: one value, a fixed run of `size` values (the
 * update log's keys, say) or, last only, the rest. `T` is what a caller passes there.
 */
export interface Slot<T> {
  readonly size: number | "rest";
  /** the caller's type (never set: it only carries `T`). */
  readonly type?: T;
}

type Tuple<N extends number, T, Acc extends T[] = []> = Acc["length"] extends N ? Acc : Tuple<N, T, [...Acc, T]>;

/** The kinds of slot a declaration names. */
export const luaSlot = {
  /** one value (a key, or an argument of type `T`). */
  one: <T extends LuaValue = string>(): Slot<T> => ({ size: 1 }),
  /** a fixed run of `size` values, passed as a tuple. */
  run: <N extends number, T extends LuaValue = string>(size: N): Slot<Readonly<Tuple<N, T>>> => ({ size }),
  /** every value from here on (the last slot only), passed as a list. */
  rest: <T extends LuaValue = string>(): Slot<readonly T[]> => ({ size: "rest" }),
};

export type Slots = Record<string, { readonly size: number | "rest" }>;
/** What a caller passes for a table of slots: each name with its slot's type. */
export type Values<S extends Slots> = { [N in keyof S]: S[N] extends Slot<infer T> ? T : never };

/** A script as declared: its file, its KEYS and ARGV in order, and how its reply is decoded. */
export interface ScriptDeclaration<K extends Slots, A extends Slots, Raw, R> {
  /** the .lua file, in the folder the script table was made for. */
  file: string;
  keys: K;
  args: A;
  /** the reply as Redis gives it (`Raw`) turned into what callers get. */
  reply: (raw: Raw) => R;
}

/** A callable script: `await script(redis, keys, args)` runs it in the keys' slot. */
export interface LuaScript<K extends Slots, A extends Slots, R> {
  (redis: Redis, keys: Values<K>, args: Values<A>): Promise<R>;
  readonly declaration: ScriptDeclaration<K, A, never, R> & { url: URL };
}

/**
 * A script's source; each line `--!include <file>` is replaced by that file, looked up beside the
 * including file first and then in the `includeFrom` folders (the update log's append, say), so
 * scripts share code instead of copying it. The bundles keep every .lua file in one folder.
 */
const sources = new Map<string, string>();
function source(url: URL, includeFrom: readonly string[]): string {
  let lua = sources.get(url.href);
  if (lua === undefined) {
    lua = readFileSync(url, "utf8").replace(/^--!include (\S+)$/gm, (_, file: string) => {
      const found = [url.href, ...includeFrom].map((d) => new URL(`./${file}`, d)).find((u) => existsSync(u));
      if (!found) throw new Error(`${url.pathname}: --!include ${file}: no such file`);
      return source(found, includeFrom);
    });
    sources.set(url.href, lua);
  }
  return lua;
}

function checkSlots(file: string, slots: Slots): void {
  const names = Object.keys(slots);
  names.forEach((name, i) => {
    if (slots[name]!.size === "rest" && i !== names.length - 1) throw new Error(`${file}: ${name} (rest) is not last`);
  });
}

function flatten(out: LuaValue[], slots: Slots, values: Record<string, unknown>): void {
  for (const name in slots) {
    const v = values[name] as LuaValue | readonly LuaValue[];
    if (slots[name]!.size === 1) out.push(v as LuaValue);
    else for (const x of v as readonly LuaValue[]) out.push(x);
  }
}

/**
 * The scripts of a folder (`base`, a module's import.meta.url; `includeFrom`, other folders its
 * scripts include files of): `script(file, declaration)` makes
 * each typed function. The number of KEYS is counted from the declaration at each call. A call
 * is an EVALSHA, falling back to EVAL (which caches the script) on NOSCRIPT, as ioredis's
 * defineCommand does; both are ordinary commands, so any client runs every script with no setup:
 * one Redis or a Cluster (routed by the first key: a script's keys share the bot's slot), with
 * auto-pipelining or in a pipeline.
 */
export function scriptsIn(base: string, includeFrom: readonly string[] = []) {
  return function script<K extends Slots, A extends Slots, Raw, R>(
    file: string,
    d: Omit<ScriptDeclaration<K, A, Raw, R>, "file">,
  ): LuaScript<K, A, R> {
    checkSlots(file, d.keys);
    checkSlots(file, d.args);
    const url = new URL(`./${file}`, base);
    const lua = source(url, includeFrom);
    const sha = createHash("sha1").update(lua).digest("hex");
    const call = async (redis: Redis, keys: Values<K>, args: Values<A>): Promise<R> => {
      const values: LuaValue[] = [];
      flatten(values, d.keys, keys);
      const numberOfKeys = values.length;
      flatten(values, d.args, args);
      let raw: unknown;
      try {
        raw = await redis.evalsha(sha, numberOfKeys, ...values);
      } catch (err) {
        if (!(err instanceof Error) || !err.message.startsWith("NOSCRIPT")) throw err;
        raw = await redis.eval(lua, numberOfKeys, ...values);
      }
      return d.reply(raw as Raw);
    };
    return Object.assign(call, { declaration: { file, url, ...d } as LuaScript<K, A, R>["declaration"] });
  };
}
