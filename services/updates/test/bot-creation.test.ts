import { afterAll, beforeAll, expect, it } from "vitest";
import { keys } from "@starpost/shared";
import { botClient, startStack, type TestStack } from "@starpost/testkit";

// Creating a bot is two steps (the global username claim, then the bot and its token in one Lua
// step in the bot's slot); these tests stop between them by writing what a crash would leave.
let stack: TestStack;
beforeAll(async () => {
  stack = await startStack();
});
afterAll(() => stack.close());

const create = (body: Record<string, unknown>) => stack.platform.call("POST", "/bots", body);
const taken = { ok: false, error_code: 400, description: "Bad Request: username is already taken" };

it("a claim left by a creation that died before its bot step is taken over by a retry", async () => {
  await stack.redis.hset(keys.botUsernames(), "orphan_bot", "4242");
  const res = await create({ username: "Orphan_bot", token: "4243:abcdefabcdef" });
  expect(res.body.result).toMatchObject({ id: 4243, username: "Orphan_bot", token: "4243:abcdefabcdef" });
  expect(await stack.redis.hget(keys.botUsernames(), "orphan_bot")).toBe("4243");
  expect((await botClient(stack.gatewayUrl, "4243:abcdefabcdef")("getMe")).body.result).toMatchObject({
    id: 4243,
    username: "Orphan_bot",
  });
});

it("a live bot's username is refused, and a refused token leaves no claim behind", async () => {
  const first = await stack.platform.createBot({ username: "live_one_bot" });
  expect((await create({ username: "LIVE_ONE_bot" })).body).toEqual(taken);
  const again = await create({ username: "other_one_bot", token: `${first.id}:zzzzzzzzzzzz` });
  expect(again.body).toEqual({
    ok: false,
    error_code: 400,
    description: "Bad Request: a bot with this id already exists",
  });
  expect(await stack.redis.hget(keys.botUsernames(), "other_one_bot")).toBeNull();
  expect((await create({ username: "other_one_bot" })).body.ok).toBe(true);
});

it("a fresh claim (a creation still in flight) is not taken over", async () => {
  await stack.redis.hset(keys.botUsernames(), "inflight_bot", "6161", "inflight_bot:at", Date.now());
  expect((await create({ username: "inflight_bot" })).body).toEqual(taken);
});

it("concurrent creations of one username, one over a stale claim, make exactly one bot", async () => {
  await stack.redis.hset(keys.botUsernames(), "race_bot", "5151");
  const answers = await Promise.all(Array.from({ length: 12 }, () => create({ username: "race_bot" })));
  const created = answers.filter((a) => a.body.ok).map((a) => a.body.result);
  expect(created).toHaveLength(1);
  expect(answers.filter((a) => !a.body.ok).every((a) => a.body.description === taken.description)).toBe(true);
  expect(await stack.redis.hget(keys.botUsernames(), "race_bot")).toBe(String(created[0].id));
});
