import { readdirSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { headerDisagreements } from "@starpost/testkit";
import { fill, jsonTemplate, scripts } from "../src/index.ts";

describe("shared Lua scripts", () => {
  it("each .lua header names the KEYS and ARGV its declaration passes, in order", () => {
    for (const script of Object.values(scripts))
      expect(headerDisagreements(script), script.declaration.file).toEqual([]);
  });

  it("every script of the folder is declared (the files scripts include are not run alone)", () => {
    const included = ["fill.lua", "log-entry.lua", "update-log.lua", "wake.lua"];
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

describe("JSON templates for Lua (fill marks)", () => {
  it("writes members in order, leaves undefined out, and no value can carry a mark", () => {
    const forged = "\u0001chat\u0001";
    const t = jsonTemplate({ message_id: fill("message_id"), text: forged, entities: undefined, n: 1 }).json;
    expect(t).toBe(`{"message_id":\u0001message_id\u0001,"text":"\\u0001chat\\u0001","n":1}`);
    expect(t.split("\u0001")).toHaveLength(3);
  });
});
