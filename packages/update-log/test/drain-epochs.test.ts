import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Redis } from "ioredis";
import { keys } from "@starpost/shared";
import { createLogger, createRedis } from "@starpost/runtime";
import {
  appendThenDeliver,
  appendUpdatesOnce,
  CARRIED_FRESH_MS,
  confirmUpdates,
  createDeliveryQueue,
  drainJobId,
  RECHECK_DELAY_MS,
  requestDrain,
  type DeliveryQueues,
  type DrainJob,
} from "@starpost/update-log";
import { appendUpdate, encodeEntry, eventually, openTicket, startRedis, type RedisServer } from "@starpost/testkit";

/**
 * Drain epochs (lua/drain-epoch.lua) as the producers and the confirmation see them, with no
 * worker: which steps open and close a webhook bot's epoch, and which drain jobs they ask for.
 */
describe("drain epochs", () => {
  let server: RedisServer;
  let redis: Redis;
  let queueConnection: Redis;
  let deliveryQueue: DeliveryQueues;
  let next = 8000;

  beforeAll(async () => {
    server = await startRedis();
    const logger = createLogger("test", "silent");
    redis = createRedis({ url: server.url, logger, role: "test" });
    queueConnection = createRedis({ url: server.url, logger, role: "test-queue", bullmq: true });
    deliveryQueue = createDeliveryQueue(queueConnection);
  });
  afterAll(async () => {
    await deliveryQueue?.close();
    await Promise.all([redis?.quit(), queueConnection?.quit()]);
    await server?.stop();
  });

  /** A bot with a webhook of generation "g<id>" and nothing pending. */
  async function webhookBot() {
    const botId = String(next++);
    await redis.hset(keys.bot(botId), "id", botId);
    await redis.hset(keys.webhook(botId), "url", "https://example.com/hook", "generation", `g${botId}`);
    return botId;
  }
  const message = (text: string) => ({
    message_id: 1,
    date: 0,
    chat: { id: 5, type: "private", first_name: "A" },
    from: { id: 5, is_bot: false, first_name: "A" },
    text,
  });
  const jobOf = (botId: string, ticket: string) => deliveryQueue.forBot(botId).getJob(drainJobId(botId, ticket));
  const sink = () => ({ redis, deliveryQueue });

  it("an append to a bot nobody drains opens an epoch whose job carries the log; appends while it is open ask for no job", async () => {
    const botId = await webhookBot();
    await appendUpdate(sink(), botId, "message", message("first"));
    expect(await openTicket(redis, botId)).toBe(`g${botId}_1`);
    const job = await jobOf(botId, `g${botId}_1`);
    const data = job!.data as DrainJob;
    expect(data.first!.rows.map(([id]) => id)).toEqual(["1-0"]);
    expect(data.first!.webhook).toContain("https://example.com/hook");

    await appendUpdate(sink(), botId, "message", message("second"));
    expect(await openTicket(redis, botId)).toBe(`g${botId}_1`);
    const jobs = await deliveryQueue.forBot(botId).getJobs(["waiting", "delayed", "active"]);
    expect(jobs.filter((j) => j.data.botId === botId)).toHaveLength(1);
  });

  it("the confirmation that empties the log closes the epoch, and the next append opens the next one with its own job", async () => {
    const botId = await webhookBot();
    await appendUpdate(sink(), botId, "message", message("one"));
    await appendUpdate(sink(), botId, "message", message("two"));
    const ticket = `g${botId}_1`;
    const attempt = { update_ids: [1], status: 200, duration_ms: 1 };
    expect(await confirmUpdates(redis, botId, ticket, [1], { attempt })).toEqual({ deleted: 1, epoch: "more" });
    expect(await confirmUpdates(redis, botId, ticket, [2], { attempt })).toEqual({ deleted: 1, epoch: "closed" });
    expect(await redis.hget(keys.webhook(botId), "drain")).toBe("-1");
    expect(await openTicket(redis, botId)).toBeUndefined();

    await appendUpdate(sink(), botId, "message", message("three"));
    expect(await openTicket(redis, botId)).toBe(`g${botId}_2`);
    expect(await jobOf(botId, `g${botId}_2`)).toBeDefined();
  });

  it("a confirmation for a webhook replaced since keeps the update pending", async () => {
    const botId = await webhookBot();
    await appendUpdate(sink(), botId, "message", message("kept"));
    await redis.hset(keys.webhook(botId), "generation", "replaced");
    const attempt = { update_ids: [1], status: 200, duration_ms: 1 };
    expect(await confirmUpdates(redis, botId, `g${botId}_1`, [1], { attempt })).toEqual({
      deleted: 0,
      epoch: "changed",
    });
    expect(await redis.xlen(keys.updateLog(botId))).toBe(1);
  });

  it("a step whose answer is lost (it may yet be applied) asks Redis again: the epoch it opened gets its job", async () => {
    const botId = await webhookBot();
    const applied = appendThenDeliver(
      sink(),
      botId,
      async (r) => {
        // What a step that timed out after Redis ran it leaves: an update and its open epoch.
        const entry = { kind: "message", queue: "c5", expiresAt: Date.now() + 60_000, json: "{}" };
        await r.xadd(keys.updateLog(botId), "1-0", ...encodeEntry(entry));
        await r.hset(keys.webhook(botId), "drain", 1);
        throw new Error("Command timed out");
      },
      () => undefined,
    );
    await expect(applied).rejects.toThrow("Command timed out");
    await eventually(async () => (await jobOf(botId, `g${botId}_1`)) !== undefined, 10_000, "the epoch's job");
    // A recheck's job waits longer than a carried job is trusted (ticket.ts).
    const job = (await jobOf(botId, `g${botId}_1`))!;
    expect(await job.getState()).toBe("delayed");
    expect(job.opts.delay).toBeGreaterThanOrEqual(RECHECK_DELAY_MS);
    expect(RECHECK_DELAY_MS).toBeGreaterThan(CARRIED_FRESH_MS);
  });

  it("a recheck after a job found the bot held asks for nothing while the timer holds it, and for the epoch's job once it let the bot go", async () => {
    const botId = await webhookBot();
    await appendUpdate(sink(), botId, "message", message("held"));
    const ticket = `g${botId}_1`;
    // That job ran, found the bot held by the retry timer and ended.
    await (await jobOf(botId, ticket))!.remove();
    await redis.hset(keys.webhookStatus(botId), "retry_at", String(Date.now() + 60_000));
    const recheck = { cause: "recheck", redis, unlessHeld: true } as const;
    expect(await requestDrain(deliveryQueue, botId, recheck)).toBe(false);
    expect(await jobOf(botId, ticket)).toBeUndefined();
    // The timer let the bot go while that job ran: its ask for the epoch's job found the job there.
    await redis.hdel(keys.webhookStatus(botId), "retry_at");
    expect(await requestDrain(deliveryQueue, botId, recheck)).toBe(true);
    expect(await jobOf(botId, ticket)).toBeDefined();
  });

  it("a push repeated with its idempotency key asks for the first call's job again", async () => {
    const botId = await webhookBot();
    const push = () =>
      appendUpdatesOnce(
        sink(),
        botId,
        [{ kind: "message", payload: message("once") }],
        { chats: [], users: [] },
        {
          key: "k1",
          fingerprint: "f1",
          lifetimeMs: 60_000,
        },
      );
    expect((await push()).outcome).toBe("appended");
    const ticket = `g${botId}_1`;
    await (await jobOf(botId, ticket))!.remove(); // its job lost with the first call's answer
    expect(await push()).toMatchObject({ outcome: "appended", repeat: true });
    expect(await jobOf(botId, ticket)).toBeDefined();
    expect(await redis.xlen(keys.updateLog(botId))).toBe(1);
  });
});
