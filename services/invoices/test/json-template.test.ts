import { describe, expect, it } from "vitest";
import { fill, jsonTemplate } from "../src/lua/template.ts";

describe("JSON templates for Lua (fill marks)", () => {
  it("writes members in order, leaves undefined out, and no value can carry a mark", () => {
    const forged = "\u0001chat\u0001";
    const t = jsonTemplate({ message_id: fill("message_id"), text: forged, entities: undefined, n: 1 }).json;
    expect(t).toBe(`{"message_id":\u0001message_id\u0001,"text":"\\u0001chat\\u0001","n":1}`);
    expect(t.split("\u0001")).toHaveLength(3);
  });
});
