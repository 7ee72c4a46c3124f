import { connect } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { keys } from "@starpost/shared";
import {
  commandCalls,
  startStack,
  userMessage,
  type TestStack,
  eventually,
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

const waiting = () => metric(stack.gatewayUrl, "starpost_polls_waiting");

describe("long polling", () => {
  it("holds the request and answers as soon as an update is pushed", async () => {
    const bot = await stack.platform.createBot();
    const started = Date.now();
    const poll = getUpdates(stack.gatewayUrl, bot.token, { timeout: 20 });
    await waitingPoll(stack.redis, bot.id);
    expect(await waiting()).toBe(1);
    const id = await push(stack.platform, bot.id, userMessage(5, "hello"));
    const res = await poll;
    expect(res.status).toBe(200);
    expect(ids(res)).toEqual([id]);
    expect(res.body.result[0].message.text).toBe("hello");
    expect(Date.now() - started).toBeLessThan(10_000);
    // An answered poll gives up its waiter at once; its claim stays (a delete would be a write
    // more) until the bot's next poll takes it over, which waits as any first poll does.
    expect(await waiting()).toBe(0);
    const answered = await pollOwner(stack.redis, bot.id);
    expect(answered).not.toBeNull();
    const next = getUpdates(stack.gatewayUrl, bot.token, { offset: id + 1, timeout: 20 });
    await waitingPoll(stack.redis, bot.id, answered);
    const second = await push(stack.platform, bot.id, userMessage(5, "again"));
    expect(ids(await next)).toEqual([second]);
  });

  const xranges = () => commandCalls(stack, "xrange");

  it("a woken poll answers with the updates the push carried, in order, without reading the log", async () => {
    const bot = await stack.platform.createBot();
    const poll = getUpdates(stack.gatewayUrl, bot.token, { timeout: 20 });
    await waitingPoll(stack.redis, bot.id);
    const before = await xranges();
    const pushed = await stack.platform.pushUpdate(bot.id, [userMessage(5, "a"), userMessage(6, "b")]);
    const res = await poll;
    expect(ids(res)).toEqual(pushed.body.result.map((r: { update_id: number }) => r.update_id));
    expect(res.body.result.map((u: { message: { text: string } }) => u.message.text)).toEqual(["a", "b"]);
    expect(await xranges()).toBe(before);
  });

  it("a woken poll whose limit is below what the push carried reads the log and answers the oldest", async () => {
    const bot = await stack.platform.createBot();
    const poll = getUpdates(stack.gatewayUrl, bot.token, { limit: 1, timeout: 20 });
    await waitingPoll(stack.redis, bot.id);
    const before = await xranges();
    const pushed = await stack.platform.pushUpdate(bot.id, [userMessage(5, "a"), userMessage(6, "b")]);
    expect(ids(await poll)).toEqual([pushed.body.result[0].update_id]);
    expect(await xranges()).toBeGreaterThan(before);
  });

  it("a woken poll with a negative offset keeps only the newest of what the push carried, as its read would", async () => {
    const bot = await stack.platform.createBot();
    const poll = getUpdates(stack.gatewayUrl, bot.token, { offset: -1, timeout: 20 });
    await waitingPoll(stack.redis, bot.id);
    const pushed = await stack.platform.pushUpdate(bot.id, [userMessage(5, "a"), userMessage(6, "b")]);
    expect(ids(await poll)).toEqual([pushed.body.result[1].update_id]);
  });

  it("a woken poll whose offset is past what the push carried keeps waiting, as its read would", async () => {
    const bot = await stack.platform.createBot();
    // An offset up to 10 past the next id is kept (poll-updates.lua): ids 1 and 2 are below it.
    const poll = getUpdates(stack.gatewayUrl, bot.token, { offset: 3, timeout: 20 });
    await waitingPoll(stack.redis, bot.id);
    await stack.platform.pushUpdate(bot.id, [userMessage(5, "a"), userMessage(6, "b")]);
    const third = await push(stack.platform, bot.id, userMessage(7, "c"));
    expect(third).toBe(3);
    expect(ids(await poll)).toEqual([3]);
  });

  it("answers at once when updates are ready, without waiting", async () => {
    const bot = await stack.platform.createBot();
    await push(stack.platform, bot.id, userMessage(5, "ready"));
    const started = Date.now();
    const res = await getUpdates(stack.gatewayUrl, bot.token, { timeout: 30 });
    expect(ids(res)).toEqual([1]);
    expect(Date.now() - started).toBeLessThan(5000);
    expect(await pollOwner(stack.redis, bot.id)).toBeNull();
  });

  it("answers an empty list when the timeout passes", async () => {
    const bot = await stack.platform.createBot();
    const started = Date.now();
    const res = await getUpdates(stack.gatewayUrl, bot.token, { timeout: 1 });
    expect(res.body).toEqual({ ok: true, result: [] });
    expect(Date.now() - started).toBeGreaterThanOrEqual(950);
    expect(await pollOwner(stack.redis, bot.id)).toBeNull();
  });

  it("a waiting poll keeps its offset: it confirms below it and returns from it", async () => {
    const bot = await stack.platform.createBot();
    await push(stack.platform, bot.id, userMessage(5, "one"));
    const poll = getUpdates(stack.gatewayUrl, bot.token, { offset: 2, timeout: 20 });
    await waitingPoll(stack.redis, bot.id);
    expect(await stack.redis.xlen(keys.updateLog(bot.id))).toBe(0);
    await push(stack.platform, bot.id, userMessage(5, "two"));
    expect(ids(await poll)).toEqual([2]);
  });

  it("an update the bot does not allow does not answer a waiting poll", async () => {
    const bot = await stack.platform.createBot();
    const poll = getUpdates(stack.gatewayUrl, bot.token, { timeout: 2 });
    await waitingPoll(stack.redis, bot.id);
    const reaction = {
      message_reaction: {
        chat: { id: 5, type: "private" },
        message_id: 1,
        date: 1,
        old_reaction: [],
        new_reaction: [],
      },
    };
    const res = await stack.platform.pushUpdate(bot.id, reaction);
    expect(res.body.result).toEqual({ update_id: null, dropped: "not_allowed" });
    expect((await poll).body).toEqual({ ok: true, result: [] });
  });

  it("a client that disconnects mid-poll frees its waiter at once and loses no update", async () => {
    const bot = await stack.platform.createBot();
    const controller = new AbortController();
    const poll = getUpdates(stack.gatewayUrl, bot.token, { timeout: 40 }, controller.signal).catch((e: Error) => e);
    await waitingPoll(stack.redis, bot.id);
    expect(await waiting()).toBe(1);
    controller.abort();
    expect(await poll).toBeInstanceOf(Error);
    await eventually(async () => (await waiting()) === 0 && (await pollOwner(stack.redis, bot.id)) === null);
    // The update pushed after the client left waits for the next call.
    const id = await push(stack.platform, bot.id, userMessage(5, "kept"));
    const next = await getUpdates(stack.gatewayUrl, bot.token, { timeout: 5 });
    expect(next.status).toBe(200);
    expect(ids(next)).toEqual([id]);
  });

  it("a client that leaves before its poll is even checked leaves no poll held", async () => {
    const bot = await stack.platform.createBot();
    const { hostname, port } = new URL(stack.gatewayUrl);
    // Each client sends a whole long poll and hangs up at once, while the gateway is still
    // checking its token: nobody is left to answer, so nothing may wait for the 40 s timeout.
    for (let i = 0; i < 30; i++) {
      await new Promise<void>((resolve) => {
        const socket = connect(Number(port), hostname, () => {
          socket.write(`GET /bot${bot.token}/getUpdates?timeout=40 HTTP/1.1\r\nHost: ${hostname}\r\n\r\n`, () => {
            socket.destroy();
            resolve();
          });
        });
      });
    }
    await eventually(
      async () => (await waiting()) === 0 && (await pollOwner(stack.redis, bot.id)) === null,
      10_000,
      "no poll to be held",
    );
    const id = await push(stack.platform, bot.id, userMessage(5, "after"));
    expect(ids(await getUpdates(stack.gatewayUrl, bot.token, { timeout: 5 }))).toEqual([id]);
  });

  it("updates pushed in one platform call are answered in one response", async () => {
    const bot = await stack.platform.createBot();
    const poll = getUpdates(stack.gatewayUrl, bot.token, { timeout: 20 });
    await waitingPoll(stack.redis, bot.id);
    // One call appends all three in one step, so the woken poll reads them all.
    const pushed = await stack.platform.pushUpdate(
      bot.id,
      [1, 2, 3].map((i) => userMessage(5, `burst ${i}`)),
    );
    expect(pushed.status).toBe(200);
    expect(ids(await poll)).toEqual([1, 2, 3]);
  });
});

describe("expiry", () => {
  it("never returns an update whose lifetime ended (150 s for callback queries, 24 h for messages)", async () => {
    const { appendUpdate } = await import("@starpost/testkit");
    const bot = await stack.platform.createBot();
    const botId = String(bot.id);
    const callback = { id: "cb1", from: { id: 5, is_bot: false, first_name: "Ann" }, chat_instance: "x", data: "d" };
    const now = Date.now();
    const old = await appendUpdate(stack, botId, "callback_query", callback, now - 151_000);
    const fresh = await appendUpdate(stack, botId, "callback_query", callback, now - 149_000);
    const oldMessage = await appendUpdate(stack, botId, "message", userMessage(5, "old").message, now - 86_401_000);
    const message = await appendUpdate(stack, botId, "message", userMessage(5, "new").message, now - 86_000_000);
    expect([old, fresh, oldMessage, message].map((o) => o.outcome)).toEqual([
      "appended",
      "appended",
      "appended",
      "appended",
    ]);
    const res = await getUpdates(stack.gatewayUrl, bot.token);
    expect(ids(res)).toEqual([2, 4]);
    // Expired updates are deleted as they are met, so the log holds only live ones.
    expect(await stack.redis.xlen(keys.updateLog(bot.id))).toBe(2);
  });
});
