import { readdirSync, readFileSync } from "node:fs";
import type { Slots } from "@starpost/runtime";

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

/**
 * Everything wrong with one folder's script table: each script's header disagreements (as
 * `file: …`), and each .lua file of the folder that no script declares, unless it is one the
 * scripts `include`.
 */
export function scriptTableProblems(
  table: Record<string, { declaration: { url: URL; file: string; keys: Slots; args: Slots } }>,
  include: readonly string[] = [],
): string[] {
  const scripts = Object.values(table);
  const folder = new URL("./", scripts[0]!.declaration.url);
  const declared = new Set(scripts.map((s) => s.declaration.file));
  const out = scripts.flatMap((s) => headerDisagreements(s).map((d) => `${s.declaration.file}: ${d}`));
  for (const file of readdirSync(folder).filter((f) => f.endsWith(".lua")))
    if (!declared.has(file) && !include.includes(file)) out.push(`${file}: not declared`);
  return out;
}
