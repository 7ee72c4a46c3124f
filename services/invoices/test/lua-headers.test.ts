import { readdirSync } from "node:fs";
import { headerDisagreements } from "@starpost/testkit";
import { describe, expect, it } from "vitest";
import { invoiceScripts } from "../src/lua/index.ts";

describe("the invoices service's Lua scripts", () => {
  it("each .lua header names the KEYS and ARGV its declaration passes, in order", () => {
    for (const script of Object.values(invoiceScripts))
      expect(headerDisagreements(script), script.declaration.file).toEqual([]);
  });

  it("every script of the folder is declared", () => {
    const files = readdirSync(new URL("../src/lua/", import.meta.url)).filter((f) => f.endsWith(".lua"));
    expect(
      Object.values(invoiceScripts)
        .map((s) => s.declaration.file)
        .sort(),
    ).toEqual(files.sort());
  });
});
