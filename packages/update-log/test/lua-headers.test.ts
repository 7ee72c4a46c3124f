import { headerDisagreements, scriptTableProblems } from "@starpost/testkit";
import { describe, expect, it } from "vitest";
import { logScripts } from "../src/lua/index.ts";

describe("the update log's Lua scripts", () => {
  it("each .lua header names the KEYS and ARGV its declaration passes, in order, and every script of the folder is declared", () => {
    expect(
      scriptTableProblems(logScripts, [
        "allowed-updates.lua",
        "drain-epoch.lua",
        "history.lua",
        "log-entry.lua",
        "replay.lua",
        "update-log.lua",
        "wake.lua",
      ]),
    ).toEqual([]);
  });

  it("a header that disagrees is reported", () => {
    const { url, keys, args } = logScripts.pollUpdates.declaration;
    const swapped = { ...keys, counter: keys.stream, stream: keys.counter };
    const { counter, stream, ...rest } = swapped;
    expect(headerDisagreements({ declaration: { url, keys: { counter, stream, ...rest }, args } })).toEqual([
      "KEYS: declared counter@1 stream@2 webhook@3 owner@4 allowed@5 bot@6 requests@7 activity@8 faults@9, header stream@1 counter@2 webhook@3 owner@4 allowed@5 bot@6 requests@7 activity@8 faults@9",
    ]);
  });
});
