import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Errors, keys } from "@starpost/shared";
import {
  botClient,
  startStack,
  userMessage,
  type TestStack,
  getUpdates,
  ids,
  metric,
  pollOwner,
  push,
  waitingPoll,
} from "@starpost/testkit";

let stack: TestStack;
beforeAll(async () => {
  stack = await startStack();
});
afterAll(async () => {
  await stack?.close();
});

const OTHER = Errors.conflictOtherGetUpdates().toJSON();
const WEBHOOK_ACTIVE = Errors.conflictWebhookActive().toJSON();
const SET_WEBHOOK = Errors.conflictSetWebhook().toJSON();

describe("getUpdates conflicts", () => {
  it("a new poll that waits ends the older waiting one with 409; the new one proceeds", async () => {
    const bot = await stack.platform.createBot();
    const older = getUpdates(stack.gatewayUrl, bot.token, { timeout: 30 });
    await waitingPoll(stack.redis, bot.id);
    const first = await pollOwner(stack.redis, bot.id);
    const newer = getUpdates(stack.gatewayUrl, bot.token, { timeout: 30 });
    const res = await older;
    expect(res.status).toBe(409);
    expect(res.body).toEqual(OTHER);
    expect(res.body.description).toBe(
      "Conflict: terminated by other getUpdates request; make sure that only one bot instance is running",
    );
    await waitingPoll(stack.redis, bot.id, first);
    const id = await push(stack.platform, bot.id, userMessage(7, "for the newer"));
    expect(ids(await newer)).toEqual([id]);
  });

  it("a call that returns at once does not disturb a waiting poll", async () => {
    const bot = await stack.platform.createBot();
    const waiting = getUpdates(stack.gatewayUrl, bot.token, { timeout: 30 });
    await waitingPoll(stack.redis, bot.id);
    const quick = await getUpdates(stack.gatewayUrl, bot.token, { timeout: 0 });
    expect(quick.body).toEqual({ ok: true, result: [] });
    // Updates ready: even a call with a timeout answers at once and leaves the waiting poll alone.
    const id = await push(stack.platform, bot.id, userMessage(7, "x"));
    const res = await waiting;
    expect(res.status).toBe(200);
    expect(ids(res)).toEqual([id]);
    const ready = await getUpdates(stack.gatewayUrl, bot.token, { timeout: 30 });
    expect(ids(ready)).toEqual([id]);
  });

  it("getUpdates while a webhook is set is a 409 that names deleteWebhook, and changes no setting", async () => {
    const bot = await stack.platform.createBot();
    await stack.redis.hset(keys.webhook(bot.id), { url: "https://example.com/hook" });
    const res = await getUpdates(stack.gatewayUrl, bot.token, { timeout: 5, allowed_updates: ["chat_member"] });
    expect(res.status).toBe(409);
    expect(res.body).toEqual(WEBHOOK_ACTIVE);
    expect(res.body.description).toContain("deleteWebhook");
    expect(await stack.redis.exists(keys.allowedUpdates(bot.id))).toBe(0);
  });

  it("setWebhook ends a waiting poll with 409 'terminated by setWebhook request'", async () => {
    const bot = await stack.platform.createBot();
    const poll = getUpdates(stack.gatewayUrl, bot.token, { timeout: 30 });
    await waitingPoll(stack.redis, bot.id);
    const set = await botClient(stack.gatewayUrl, bot.token)("setWebhook", { url: "http://127.0.0.1:9/hook" });
    expect(set.body).toMatchObject({ ok: true, result: true });
    const res = await poll;
    expect(res.status).toBe(409);
    expect(res.body).toEqual(SET_WEBHOOK);
    expect(
      await metric(stack.gatewayUrl, "starpost_poll_conflicts_total", 'reason="set_webhook"'),
    ).toBeGreaterThanOrEqual(1);
  });

  it("spaces repeated 409s to one bot by 3 seconds", async () => {
    const bot = await stack.platform.createBot();
    await stack.redis.hset(keys.webhook(bot.id), { url: "https://example.com/hook" });
    const t0 = Date.now();
    expect((await getUpdates(stack.gatewayUrl, bot.token)).status).toBe(409);
    const t1 = Date.now();
    expect((await getUpdates(stack.gatewayUrl, bot.token)).status).toBe(409);
    const t2 = Date.now();
    expect(t1 - t0).toBeLessThan(2500);
    expect(t2 - t1).toBeGreaterThanOrEqual(2900);
    // Another bot is not slowed down by this one's conflicts.
    const other = await stack.platform.createBot();
    await stack.redis.hset(keys.webhook(other.id), { url: "https://example.com/hook" });
    const t3 = Date.now();
    expect((await getUpdates(stack.gatewayUrl, other.token)).status).toBe(409);
    expect(Date.now() - t3).toBeLessThan(2500);
  });
});

describe("allowed_updates", () => {
  const reaction = {
    message_reaction: { chat: { id: 9, type: "private" }, message_id: 1, date: 1, old_reaction: [], new_reaction: [] },
  };
  const member = {
    chat_member: {
      chat: { id: -100, type: "supergroup", title: "g" },
      from: { id: 9, is_bot: false, first_name: "A" },
      date: 1,
      old_chat_member: { status: "left", user: { id: 9, is_bot: false, first_name: "A" } },
      new_chat_member: { status: "member", user: { id: 9, is_bot: false, first_name: "A" } },
    },
  };
  const outcome = async (botId: number, update: unknown) =>
    (await stack.platform.pushUpdate(botId, update)).body.result;

  it("by default the opt-in kinds chat_member, message_reaction, message_reaction_count are dropped", async () => {
    const bot = await stack.platform.createBot();
    expect(await outcome(bot.id, reaction)).toEqual({ update_id: null, dropped: "not_allowed" });
    expect(await outcome(bot.id, member)).toEqual({ update_id: null, dropped: "not_allowed" });
    expect(await outcome(bot.id, userMessage(9, "hi"))).toEqual({ update_id: 1 });
  });

  it("is remembered per bot, matched case-insensitively, and filters at creation; queued updates stay", async () => {
    const bot = await stack.platform.createBot();
    expect(await outcome(bot.id, userMessage(9, "queued"))).toEqual({ update_id: 1 });
    const set = await getUpdates(stack.gatewayUrl, bot.token, {
      offset: 1,
      allowed_updates: ["MESSAGE_REACTION", "chat_member", "nonsense"],
    });
    // Already queued: still delivered although "message" is no longer allowed.
    expect(ids(set)).toEqual([1]);
    expect(await outcome(bot.id, userMessage(9, "now filtered"))).toEqual({ update_id: null, dropped: "not_allowed" });
    expect(await outcome(bot.id, reaction)).toEqual({ update_id: 2 });
    expect(await outcome(bot.id, member)).toEqual({ update_id: 3 });

    // Absent, unparsable or not an array: the setting stays.
    await getUpdates(stack.gatewayUrl, bot.token, { offset: 4 });
    await getUpdates(stack.gatewayUrl, bot.token, { offset: 4, allowed_updates: "[not json" });
    await getUpdates(stack.gatewayUrl, bot.token, { offset: 4, allowed_updates: { message: true } });
    expect(await outcome(bot.id, userMessage(9, "still filtered"))).toEqual({
      update_id: null,
      dropped: "not_allowed",
    });

    // An array naming no known kind (e.g. []) restores the default.
    await getUpdates(stack.gatewayUrl, bot.token, { offset: 4, allowed_updates: [] });
    expect(await outcome(bot.id, reaction)).toEqual({ update_id: null, dropped: "not_allowed" });
    expect(await outcome(bot.id, userMessage(9, "allowed again"))).toEqual({ update_id: 4 });
  });

  it("is shared with setWebhook: getWebhookInfo shows what getUpdates set", async () => {
    const bot = await stack.platform.createBot();
    await getUpdates(stack.gatewayUrl, bot.token, { allowed_updates: ["message", "chat_member"] });
    const info = await botClient(stack.gatewayUrl, bot.token)("getWebhookInfo");
    expect(info.body.result.allowed_updates).toEqual(["message", "chat_member"]);
  });

  it("a waiting poll applies its allowed_updates before it waits", async () => {
    const bot = await stack.platform.createBot();
    const poll = getUpdates(stack.gatewayUrl, bot.token, { timeout: 20, allowed_updates: ["message_reaction"] });
    await waitingPoll(stack.redis, bot.id);
    expect(await outcome(bot.id, userMessage(9, "dropped"))).toEqual({ update_id: null, dropped: "not_allowed" });
    expect(await outcome(bot.id, reaction)).toEqual({ update_id: 1 });
    expect((await poll).body.result[0]).toHaveProperty("message_reaction");
  });
});
