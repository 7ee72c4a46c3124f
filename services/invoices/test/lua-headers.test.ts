import { scriptTableProblems } from "@starpost/testkit";
import { describe, expect, it } from "vitest";
import { invoiceScripts } from "../src/lua/index.ts";

describe("the invoices service's Lua scripts", () => {
  it("each .lua header names the KEYS and ARGV its declaration passes, in order, and every script of the folder is declared", () => {
    expect(scriptTableProblems(invoiceScripts, ["fill.lua"])).toEqual([]);
  });
});
