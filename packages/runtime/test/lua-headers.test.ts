import { scriptTableProblems } from "@starpost/testkit";
import { describe, expect, it } from "vitest";
import { runtimeScripts } from "../src/lua/index.ts";

describe("the runtime's Lua scripts", () => {
  it("each .lua header names the KEYS and ARGV its declaration passes, in order, and every script of the folder is declared (request-log.lua, activity.lua and faults.lua are included)", () => {
    expect(scriptTableProblems(runtimeScripts, ["request-log.lua", "activity.lua", "faults.lua"])).toEqual([]);
  });
});
