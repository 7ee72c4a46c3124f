import { scriptTableProblems } from "@starpost/testkit";
import { describe, expect, it } from "vitest";
import { workerScripts } from "../src/lua/index.ts";

describe("the webhook worker's Lua scripts", () => {
  it("each .lua header names the KEYS and ARGV its declaration passes, in order, and every script of the folder is declared", () => {
    expect(scriptTableProblems(workerScripts)).toEqual([]);
  });
});
