import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  botClient,
  composeTargetEnv,
  eventually,
  metric,
  startReceiver,
  startTarget,
  userMessage,
  type Receiver,
  type Target,
} from "@starpost/testkit";

/**
 * On `docker compose up --scale webhook-worker=4`: updates for webhook bots on this host are being
 * delivered when one worker container is killed (`docker kill`, it stays down) and then the Redis
 * process is killed from the host, so the container dies as in a crash and its restart policy
 * brings it back from the append-only file. Every update the platform API acknowledged arrives,
 * in each chat's order; a repeat is only an update that was in flight.
 */

const run = promisify(execFile);
const BOTS = 3;
const CHATS = 10;
const ROUNDS = 6;
const PER_ROUND = 200; // per bot

const compose = composeTargetEnv();
let target: Target;
let receiver: Receiver;

beforeAll(async () => {
  if (!compose) throw new Error("this file runs under `npm run test:compose` against a running compose stack");
  target = await startTarget();
  receiver = await startReceiver({ host: target.receiverHost, answer: () => ({ delayMs: 20 }) });
});
afterAll(async () => {
  await receiver?.close();
  await target?.stop();
});

const inspect = async (id: string, format: string) =>
  (await run("docker", ["inspect", "--format", format, id])).stdout.trim();

describe("docker compose up --scale webhook-worker=4, a worker killed and Redis crashed mid-delivery", () => {
  it("delivers every acknowledged update, in each chat's order", async () => {
    const workers = target.instances.filter((i) => i.service === "webhook-worker");
    expect(workers).toHaveLength(4);
    const redis = compose!.containers.find((c) => c.service === "redis")!;
    expect(await inspect(redis.id, "{{.HostConfig.RestartPolicy.Name}}")).toBe("unless-stopped");

    const bots = await Promise.all(Array.from({ length: BOTS }, () => target.platform.createBot()));
    const botOfSecret = new Map<string, number>();
    for (const [i, bot] of bots.entries()) {
      botOfSecret.set(`kill_bot_${i}`, bot.id);
      const set = await botClient(target.gatewayUrl, bot.token)("setWebhook", {
        url: receiver.url,
        secret_token: `kill_bot_${i}`,
        max_connections: 20,
      });
      expect(set.body).toMatchObject({ ok: true });
    }
    const pushed = new Map<number, number[]>(bots.map((b) => [b.id, []]));
    const pushRound = (round: number) =>
      Promise.all(
        bots.map(async (bot) => {
          const batch = Array.from({ length: PER_ROUND }, (_, i) => userMessage(1 + (i % CHATS), `r${round} i${i}`));
          const r = await target.platform.pushUpdate(bot.id, batch);
          expect(r.status).toBe(200);
          pushed.get(bot.id)!.push(...r.body.result.map((x: { update_id: number }) => x.update_id));
        }),
      );
    for (let round = 0; round < ROUNDS / 2; round++) await pushRound(round);

    const total = BOTS * ROUNDS * PER_ROUND;
    const key = (g: { headers: Record<string, unknown>; update: { update_id: number } }) =>
      `${g.headers["x-platform-bot-api-secret-token"]}:${g.update.update_id}`;
    const distinct = () => new Set(receiver.received.map(key)).size;

    // The busiest worker dies while the first half is being delivered.
    await receiver.waitFor((got) => got.length >= 300, 60_000);
    const delivered = await Promise.all(
      workers.map((w) => metric(w.url, "starpost_webhook_deliveries_total", 'result="ok"')),
    );
    const victim = workers[delivered.indexOf(Math.max(...delivered))]!;
    await target.kill(victim);
    const workerKilledAt = Date.now();
    expect(distinct()).toBeLessThan(total / 2);

    // Redis crashes while the survivors are delivering.
    const atWorkerKill = receiver.received.length;
    await receiver.waitFor((got) => got.length >= atWorkerKill + 150, 120_000);
    const restartsBefore = Number(await inspect(redis.id, "{{.RestartCount}}"));
    process.kill(Number(await inspect(redis.id, "{{.State.Pid}}")), "SIGKILL");
    const redisKilledAt = Date.now();
    expect(distinct()).toBeLessThan(total / 2);
    await eventually(
      async () =>
        Number(await inspect(redis.id, "{{.RestartCount}}")) > restartsBefore &&
        (await inspect(redis.id, "{{.State.Health.Status}}")) === "healthy",
      60_000,
      "Redis restarted by its policy and healthy",
    );
    // The services reconnect by themselves; the platform API takes updates again.
    await eventually(async () => (await fetch(`${target.gatewayUrl}/readyz`)).ok, 60_000, "the gateway ready again");
    for (let round = ROUNDS / 2; round < ROUNDS; round++) await pushRound(round);

    await receiver.waitFor(() => distinct() >= total, 180_000);

    let repeats = 0;
    const arrivals = new Map<string, { id: number; at: number }[]>();
    for (const g of receiver.received) {
      const chatKey = `${botOfSecret.get(String(g.headers["x-platform-bot-api-secret-token"]))}:${g.update.message.chat.id}`;
      if (!arrivals.has(chatKey)) arrivals.set(chatKey, []);
      arrivals.get(chatKey)!.push({ id: g.update.update_id, at: g.at });
    }
    expect(arrivals.size).toBe(BOTS * CHATS);
    for (const [chatKey, list] of arrivals) {
      const distinct: number[] = [];
      for (const [i, a] of list.entries()) {
        if (i > 0 && list[i - 1]!.id === a.id) repeats++;
        else distinct.push(a.id);
      }
      const [botId, chat] = chatKey.split(":").map(Number);
      expect(distinct).toEqual(pushed.get(botId!)!.filter((_, i) => i % CHATS === chat! - 1));
    }
    // Repeats come from requests in flight at the two crashes: at most max_connections per bot each.
    expect(repeats).toBeLessThanOrEqual(2 * BOTS * 20);
    const victimState = await inspect(victim.id, "{{.State.Status}} (restarts: {{.RestartCount}})");
    console.log(
      `compose kill test: ${total} updates, ${repeats} repeats; ${victim.name} killed (now ${victimState}), Redis crashed ${((redisKilledAt - workerKilledAt) / 1000).toFixed(1)} s later; everything delivered ${((Date.now() - workerKilledAt) / 1000).toFixed(1)} s after the worker was killed`,
    );
  });
});
