import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { keys } from "@starpost/shared";
import { decodeEntry, ENTRY_FIELDS, readEntries } from "@starpost/update-log";
import { encodeEntry, startStack, userMessage, type TestStack, getUpdates, ids, push } from "@starpost/testkit";

let stack: TestStack;
beforeAll(async () => {
  stack = await startStack();
});
afterAll(async () => {
  await stack?.close();
});

describe("an update log entry has one set of field names (log-entry.lua and ENTRY_FIELDS)", () => {
  it("reads back what the Lua append wrote with the TypeScript names", async () => {
    const bot = await stack.platform.createBot();
    const before = Date.now();
    const id = await push(stack.platform, bot.id, userMessage(42, "hello"));

    const [[streamId, flat]] = (await stack.redis.xrange(keys.updateLog(bot.id), "-", "+")) as [string, string[]][];
    const names = flat!.filter((_, i) => i % 2 === 0);
    // Every field but the replay mark, which only a replay carries (replay.lua).
    const { replay, ...always } = ENTRY_FIELDS;
    expect(names.sort()).toEqual(Object.values(always).sort());
    expect(names).not.toContain(replay);

    const entry = decodeEntry(streamId!, flat!);
    expect(entry).toMatchObject({ update_id: id, kind: "message", queue: expect.any(String) });
    expect(entry.expiresAt).toBeGreaterThan(before);
    expect(JSON.parse(entry.json)).toMatchObject({ update_id: id, message: { text: "hello" } });
    expect(await readEntries(stack.redis, String(bot.id), 0, 10)).toEqual([entry]);
  });

  it("the Lua read (getUpdates) understands entries written with the TypeScript names", async () => {
    const bot = await stack.platform.createBot();
    const log = keys.updateLog(bot.id);
    const entry = (id: number, expiresAt: number) =>
      encodeEntry({
        kind: "message",
        queue: "c1",
        expiresAt,
        json: `{"update_id":${id},"message":{"message_id":${id}}}`,
      });
    await stack.redis.xadd(log, "1-0", ...entry(1, Date.now() - 1)); // expired: getUpdates deletes it
    await stack.redis.xadd(log, "2-0", ...entry(2, Date.now() + 60_000));
    await stack.redis.set(keys.updateSeq(bot.id), 2);

    expect(ids(await getUpdates(stack.gatewayUrl, bot.token))).toEqual([2]);
    expect(await stack.redis.xlen(log)).toBe(1);
  });
});
