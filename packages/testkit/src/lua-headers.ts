import { readFileSync } from "node:fs";
import type { Slots } from "@starpost/shared";

/**
 * Where a script's .lua header disagrees with its declaration: the header names every slot as
 * `KEYS[i] name:` / `ARGV[i] name:` (a run `[i..j]`, the rest `[i..]`), in the declaration's
 * order. Empty when they agree (the Lua header tests check every script).
 */
export function headerDisagreements(script: { declaration: { url: URL; keys: Slots; args: Slots } }): string[] {
  const { url, keys, args } = script.declaration;
  const header = /^--\[\[([\s\S]*?)\]\]/.exec(readFileSync(url, "utf8"))?.[1] ?? "";
  const found = { KEYS: [] as string[], ARGV: [] as string[] };
  for (const m of header.matchAll(/\b(KEYS|ARGV)\[(\d+)(?:\.\.(\d*))?\]\s+(\w+):/g)) {
    const [, table, from, to, name] = m as unknown as [string, "KEYS" | "ARGV", string, string | undefined, string];
    found[table].push(`${name}@${from}${to === undefined ? "" : `..${to}`}`);
  }
  const out: string[] = [];
  for (const [table, slots] of [
    ["KEYS", keys],
    ["ARGV", args],
  ] as const) {
    let at = 1;
    const declared = Object.entries(slots).map(([name, { size }]) => {
      const where = size === 1 ? `${at}` : size === "rest" ? `${at}..` : `${at}..${at + size - 1}`;
      if (typeof size === "number") at += size;
      return `${name}@${where}`;
    });
    if (declared.join(" ") !== found[table].join(" "))
      out.push(`${table}: declared ${declared.join(" ") || "none"}, header ${found[table].join(" ") || "none"}`);
  }
  return out;
}
