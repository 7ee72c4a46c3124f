import { describe, expect, it } from "vitest";
import { GATEWAY_METHODS } from "@starpost/gateway";
import { INVOICE_METHODS } from "@starpost/invoices";
import { WEBHOOK_METHODS } from "@starpost/updates";
import { METHODS } from "@starpost/shared";

// The contract names each method's owner; the owner's table holds its one row.
describe("the method tables", () => {
  const tables = { gateway: GATEWAY_METHODS, invoices: INVOICE_METHODS, updates: WEBHOOK_METHODS };

  it("hold exactly the methods the contract gives their service, each once", () => {
    for (const [service, table] of Object.entries(tables)) {
      const owned = Object.entries(METHODS)
        .filter(([, spec]) => spec.service === service)
        .map(([name]) => name);
      expect({ service, rows: Object.keys(table).sort() }).toEqual({ service, rows: owned.sort() });
    }
    const all = Object.values(tables).flatMap((t) => Object.keys(t));
    expect(all.sort()).toEqual(Object.keys(METHODS).sort());
  });

  it("give every row a schema and a line for docs/methods.md", () => {
    for (const table of Object.values(tables)) {
      for (const [name, row] of Object.entries(table)) {
        expect(typeof row.params.safeParse, name).toBe("function");
        expect(row.summary.length, name).toBeGreaterThan(10);
      }
    }
  });
});
