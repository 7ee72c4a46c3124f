import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { keys } from "@starpost/shared";
import { http, startStack, type TestStack, getUpdates, ids, pushMessages } from "@starpost/testkit";

let stack: TestStack;
beforeAll(async () => {
  stack = await startStack();
});
afterAll(async () => {
  await stack?.close();
});

const newBot = () => stack.platform.createBot();

describe("getUpdates offsets", () => {
  it("returns updates in id order, ids increasing by one, each {update_id, <kind>}", async () => {
    const bot = await newBot();
    const pushed = await pushMessages(stack.platform, bot.id, 5);
    expect(pushed).toEqual([1, 2, 3, 4, 5]);
    const res = await getUpdates(stack.gatewayUrl, bot.token);
    expect(res.status).toBe(200);
    expect(res.body.ok).toBe(true);
    expect(ids(res)).toEqual([1, 2, 3, 4, 5]);
    expect(Object.keys(res.body.result[0])).toEqual(["update_id", "message"]);
    expect(res.body.result[0].message.text).toBe("m0");
  });

  it("a positive offset confirms every smaller id for good", async () => {
    const bot = await newBot();
    await pushMessages(stack.platform, bot.id, 5);
    expect(ids(await getUpdates(stack.gatewayUrl, bot.token, { offset: 3 }))).toEqual([3, 4, 5]);
    // Confirmed updates are gone: absent offset starts at the oldest unconfirmed one.
    expect(ids(await getUpdates(stack.gatewayUrl, bot.token))).toEqual([3, 4, 5]);
    expect(await stack.redis.xlen(keys.updateLog(bot.id))).toBe(3);
    expect(ids(await getUpdates(stack.gatewayUrl, bot.token, { offset: 6 }))).toEqual([]);
    expect(await stack.redis.xlen(keys.updateLog(bot.id))).toBe(0);
    // Ids keep increasing after everything was confirmed.
    expect(await pushMessages(stack.platform, bot.id, 1)).toEqual([6]);
  });

  it("a negative offset keeps only the newest |offset| updates and returns them", async () => {
    const bot = await newBot();
    await pushMessages(stack.platform, bot.id, 6);
    expect(ids(await getUpdates(stack.gatewayUrl, bot.token, { offset: -2 }))).toEqual([5, 6]);
    expect(ids(await getUpdates(stack.gatewayUrl, bot.token))).toEqual([5, 6]);
    expect(ids(await getUpdates(stack.gatewayUrl, bot.token, { offset: -1, limit: 5 }))).toEqual([6]);
  });

  it("a negative offset below -10000 counts as -10000 (the spec's limit), never an error", async () => {
    const bot = await newBot();
    await pushMessages(stack.platform, bot.id, 3);
    const res = await getUpdates(stack.gatewayUrl, bot.token, { offset: -99999 });
    expect(res.status).toBe(200);
    expect(ids(res)).toEqual([1, 2, 3]);
  });

  it("an offset just past the newest confirms everything; one far beyond confirms nothing", async () => {
    const bot = await newBot();
    await pushMessages(stack.platform, bot.id, 3);
    // Far beyond the next id (another server's ids, say): the official server reads from the oldest.
    expect(ids(await getUpdates(stack.gatewayUrl, bot.token, { offset: 1_000_000 }))).toEqual([1, 2, 3]);
    expect(await stack.redis.xlen(keys.updateLog(bot.id))).toBe(3);
    expect(ids(await getUpdates(stack.gatewayUrl, bot.token, { offset: 4 }))).toEqual([]);
    expect(await stack.redis.xlen(keys.updateLog(bot.id))).toBe(0);
  });

  it("accepts parameters as JSON numbers, JSON strings, form fields and query strings alike", async () => {
    const bot = await newBot();
    await pushMessages(stack.platform, bot.id, 4);
    const json = await http(stack.gatewayUrl, "POST", `/bot${bot.token}/getUpdates`, { body: { offset: 2, limit: 1 } });
    expect(ids(json)).toEqual([2]);
    const strings = await http(stack.gatewayUrl, "POST", `/bot${bot.token}/getUpdates`, {
      body: { offset: "3", limit: "1" },
    });
    expect(ids(strings)).toEqual([3]);
    const form = await http(stack.gatewayUrl, "POST", `/bot${bot.token}/getUpdates`, {
      body: "offset=4&limit=1",
      contentType: "application/x-www-form-urlencoded",
    });
    expect(ids(form)).toEqual([4]);
    // On a duplicate name the query string wins.
    const both = await http(stack.gatewayUrl, "POST", `/bot${bot.token}/getUpdates?limit=1`, { body: { limit: 50 } });
    expect(ids(both)).toEqual([4]);
  });
});

describe("getUpdates clamps, never errors", () => {
  it("limit 0 becomes 1, above 100 becomes 100, absent is 100", async () => {
    const bot = await newBot();
    await pushMessages(stack.platform, bot.id, 150);
    expect(ids(await getUpdates(stack.gatewayUrl, bot.token, { limit: 0 }))).toEqual([1]);
    expect(ids(await getUpdates(stack.gatewayUrl, bot.token, { limit: -7 }))).toEqual([1]);
    expect(ids(await getUpdates(stack.gatewayUrl, bot.token, { limit: 1000 }))).toHaveLength(100);
    expect(ids(await getUpdates(stack.gatewayUrl, bot.token))).toHaveLength(100);
    expect(ids(await getUpdates(stack.gatewayUrl, bot.token, { limit: 7 }))).toHaveLength(7);
  });

  it("numbers are read like the reference's to_integer (garbage is 0), then clamped", async () => {
    const bot = await newBot();
    await pushMessages(stack.platform, bot.id, 2);
    // [parameters, the ids answered]: nothing is confirmed by any of these offsets, the default
    // limit is 100, limits below 1 (garbage reads as 0) count as 1, and no timeout here makes the
    // call wait. A huge offset wraps to 32 bits as in the reference (here to a negative one).
    const cases: [Record<string, unknown>, number[]][] = [
      [{ offset: "abc", limit: "lots", timeout: "soon" }, [1]],
      [{ offset: [1], limit: { n: 1 }, timeout: true }, [1]],
      [{ offset: "99999999999999999999999", limit: "1000" }, [1, 2]],
      [{ limit: "0" }, [1]],
      [{ limit: "-5", timeout: "-4" }, [1]],
      [{ limit: "2 apples" }, [1, 2]],
      [{ limit: " 2" }, [1]],
      [{ offset: "", limit: "" }, [1, 2]],
    ];
    for (const [params, expected] of cases) {
      const res = await getUpdates(stack.gatewayUrl, bot.token, params);
      expect({ params, status: res.status, ids: ids(res) }).toEqual({ params, status: 200, ids: expected });
    }
  });

  it("a negative timeout does not wait", async () => {
    const bot = await newBot();
    const started = Date.now();
    const res = await getUpdates(stack.gatewayUrl, bot.token, { timeout: -30 });
    expect(res.body).toEqual({ ok: true, result: [] });
    expect(Date.now() - started).toBeLessThan(2000);
  });
});
