import { describe, expect, it } from "vitest";
import { channels, type Happened } from "../src/channels.ts";

describe("the Happened channels' codec", () => {
  it("reads what it writes, with and without a detail (which may hold spaces)", () => {
    const all: Happened[] = [
      { botId: "42", id: "9007" },
      { botId: "42", id: "9007", detail: "paid stxspABC" },
      { botId: "42", id: "9007", detail: "declined Sorry, out of stock " },
      { botId: "42", id: "9007", detail: "declined " },
    ];
    for (const m of all) expect(channels.preCheckoutAnswered.decode(channels.preCheckoutAnswered.encode(m))).toEqual(m);
    expect(channels.preCheckoutAnswered.decode("no colon")).toBeUndefined();
  });

  it("reads what answer-pre-checkout.lua writes: the announcement, a space, the outcome", () => {
    const announce = channels.preCheckoutAnswered.encode({ botId: "42", id: "9007" });
    expect(channels.preCheckoutAnswered.decode(`${announce} failed the user does not have enough Stars`)).toEqual({
      botId: "42",
      id: "9007",
      detail: "failed the user does not have enough Stars",
    });
  });
});
