import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Errors } from "@starpost/shared";
import {
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

// Two replicas (gateway + updates + invoices each) on one Redis: a bot's polls may reach either.
let a: TestStack;
let b: TestStack;
beforeAll(async () => {
  a = await startStack();
  b = await startStack({ redisServer: a.redisServer });
});
afterAll(async () => {
  await b?.close();
  await a?.close();
});

describe("long polling across two gateways", () => {
  it("a poll through B ends the one waiting through A with 409, then B gets the update pushed through A", async () => {
    const bot = await a.platform.createBot();
    const onA = getUpdates(a.gatewayUrl, bot.token, { timeout: 30 });
    await waitingPoll(a.redis, bot.id);
    const first = await pollOwner(a.redis, bot.id);
    const onB = getUpdates(b.gatewayUrl, bot.token, { timeout: 30 });
    const ended = await onA;
    expect(ended.status).toBe(409);
    expect(ended.body).toEqual(Errors.conflictOtherGetUpdates().toJSON());
    await waitingPoll(a.redis, bot.id, first);
    expect(await metric(b.gatewayUrl, "starpost_polls_waiting")).toBe(1);
    expect(await metric(a.gatewayUrl, "starpost_polls_waiting")).toBe(0);
    const id = await push(a.platform, bot.id, userMessage(3, "via A"));
    expect(ids(await onB)).toEqual([id]);
  });

  it("and the other way round: B waiting, A takes over, an update pushed through B wakes A", async () => {
    const bot = await a.platform.createBot();
    const onB = getUpdates(b.gatewayUrl, bot.token, { timeout: 30 });
    await waitingPoll(a.redis, bot.id);
    const first = await pollOwner(a.redis, bot.id);
    const onA = getUpdates(a.gatewayUrl, bot.token, { timeout: 30 });
    expect((await onB).status).toBe(409);
    await waitingPoll(a.redis, bot.id, first);
    const id = await push(b.platform, bot.id, userMessage(3, "via B"));
    expect(ids(await onA)).toEqual([id]);
  });

  it("setWebhook through one replica ends the poll waiting on the other", async () => {
    const bot = await a.platform.createBot();
    const onB = getUpdates(b.gatewayUrl, bot.token, { timeout: 30 });
    await waitingPoll(a.redis, bot.id);
    const res = await fetch(`${a.gatewayUrl}/bot${bot.token}/setWebhook`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ url: "http://127.0.0.1:9/hook" }),
    });
    expect(((await res.json()) as { ok: boolean }).ok).toBe(true);
    const ended = await onB;
    expect(ended.status).toBe(409);
    expect(ended.body).toEqual(Errors.conflictSetWebhook().toJSON());
  });

  it("a quick call through one replica leaves the poll waiting on the other alone", async () => {
    const bot = await a.platform.createBot();
    const onA = getUpdates(a.gatewayUrl, bot.token, { timeout: 30 });
    await waitingPoll(a.redis, bot.id);
    expect((await getUpdates(b.gatewayUrl, bot.token, { timeout: 0 })).body).toEqual({ ok: true, result: [] });
    const id = await push(b.platform, bot.id, userMessage(3, "still A's"));
    expect(ids(await onA)).toEqual([id]);
  });

  it("ten rounds of alternating replicas: every older poll ends with 409, the last one gets the update", async () => {
    const bot = await a.platform.createBot();
    const stacks = [a, b];
    const polls: Promise<{ status: number }>[] = [];
    let previous: string | null = null;
    for (let i = 0; i < 10; i++) {
      polls.push(getUpdates(stacks[i % 2]!.gatewayUrl, bot.token, { timeout: 30 }));
      await waitingPoll(a.redis, bot.id, previous);
      previous = await pollOwner(a.redis, bot.id);
    }
    const id = await push(a.platform, bot.id, userMessage(3, "last"));
    const answers = await Promise.all(polls);
    expect(answers.slice(0, 9).map((r) => r.status)).toEqual(Array(9).fill(409));
    expect(answers[9]!.status).toBe(200);
    expect(ids(answers[9] as never)).toEqual([id]);
  }, 60_000);
});
