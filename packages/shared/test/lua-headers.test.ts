import { readdirSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { headerDisagreements, scripts } from "../src/index.ts";

describe("shared Lua scripts", () => {
  it("each .lua header names the KEYS and ARGV its declaration passes, in order", () => {
    for (const script of Object.values(scripts))
      expect(headerDisagreements(script), script.declaration.file).toEqual([]);
  });

  it("every script of the folder is declared (the two files scripts include are not run alone)", () => {
    const included = ["fill.lua", "update-log.lua"];
    const files = readdirSync(new URL("../src/lua/", import.meta.url)).filter((f) => f.endsWith(".lua"));
    expect(files).toEqual(expect.arrayContaining(included));
    expect(
      Object.values(scripts)
        .map((s) => s.declaration.file)
        .sort(),
    ).toEqual(files.filter((f) => !included.includes(f)).sort());
  });

  it("a header that disagrees is reported", () => {
    const { url, keys, args } = scripts.pollUpdates.declaration;
    const swapped = { counter: keys.counter, stream: keys.stream, webhook: keys.webhook, owner: keys.owner };
    expect(headerDisagreements({ declaration: { url, keys: swapped, args } })).toEqual([
      "KEYS: declared counter@1 stream@2 webhook@3 owner@4, header stream@1 counter@2 webhook@3 owner@4",
    ]);
  });
});
