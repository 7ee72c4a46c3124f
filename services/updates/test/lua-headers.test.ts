import { scriptTableProblems } from "@starpost/testkit";
import { describe, expect, it } from "vitest";
import { updatesScripts } from "../src/lua/index.ts";

describe("the updates service's Lua scripts", () => {
  it("each .lua header names the KEYS and ARGV its declaration passes, in order, and every script of the folder is declared", () => {
    expect(scriptTableProblems(updatesScripts)).toEqual([]);
  });
});
