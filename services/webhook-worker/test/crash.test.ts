import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  botClient,
  metric,
  startReceiver,
  startTarget,
  userMessage,
  type Receiver,
  type Target,
} from "@starpost/testkit";

/**
 * The delivery pool's crash guarantee with real OS processes: two workers, 10,000 updates over
 * 100 chats (4 bots x 25 chats), the busier worker killed with SIGKILL mid-run. Its drains are
 * recovered by BullMQ's stalled-job check on the other worker (lock 3 s, check every 1 s).
 * Under `npm run test:compose` the same on the compose stack's containers (`docker kill`), with
 * the compose file's settings: a lock of 30 s and a check every 15 s, so recovery takes longer.
 */

const BOTS = 4;
const CHATS_PER_BOT = 25;
const PER_BOT = 2500;

let local: Target;
let receiver: Receiver;

beforeAll(async () => {
  local = await startTarget({
    workers: 2,
    env: { LOG_LEVEL: "warn" },
    extraEnv: {
      WORKER_LOCK_MS: "3000",
      WORKER_STALLED_INTERVAL_MS: "1000",
      WEBHOOK_RECONCILE_MS: "1000",
      WEBHOOK_BACKOFF_SCALE: "0.01",
    },
  });
  receiver = await startReceiver({ host: local.receiverHost });
}, 90_000);
afterAll(async () => {
  await local?.stop();
  await receiver?.close();
});

const deliveredBy = (url: string) => metric(url, "starpost_webhook_deliveries_total", 'result="ok"');

describe("kill -9 of a webhook worker mid-run", () => {
  it("loses nothing, keeps each chat's order, and repeats only what was in flight", async () => {
    const { gatewayUrl, platform } = local;
    const recoveryMs = local.mode === "compose" ? 150_000 : 60_000;
    const bots = await Promise.all(Array.from({ length: BOTS }, () => platform.createBot()));
    const secretOf = new Map<string, number>();
    for (const [i, bot] of bots.entries()) {
      secretOf.set(`crash_bot_${i}`, bot.id);
      const set = await botClient(gatewayUrl, bot.token)("setWebhook", {
        url: receiver.url,
        secret_token: `crash_bot_${i}`,
        max_connections: 40,
      });
      expect(set.body.ok).toBe(true);
    }
    // 10 platform calls of 1000 updates (250 per bot each), chats 1..25 of every bot.
    const pushed = new Map<number, number[]>();
    for (let round = 0; round < PER_BOT / 250; round++) {
      await Promise.all(
        bots.map(async (bot) => {
          const batch = Array.from({ length: 250 }, (_, i) => userMessage(1 + (i % CHATS_PER_BOT), `r${round} i${i}`));
          const r = await platform.pushUpdate(bot.id, batch);
          expect(r.status).toBe(200);
          const ids = r.body.result.map((x: { update_id: number }) => x.update_id);
          pushed.set(bot.id, [...(pushed.get(bot.id) ?? []), ...ids]);
        }),
      );
    }

    await receiver.waitFor((got) => got.length >= 2500, 60_000);
    const workers = local.instances.filter((p) => p.service === "webhook-worker");
    const counts = await Promise.all(workers.map((w) => deliveredBy(w.url)));
    const victim = workers[counts.indexOf(Math.max(...counts))]!;
    // The victim's connections to the receiver: what it had in flight came over them.
    const { ports: victimPorts } = await local.kill(victim);
    const atKill = receiver.received.length;
    expect(atKill).toBeLessThan(BOTS * PER_BOT); // really mid-run

    const total = BOTS * PER_BOT;
    await receiver.waitFor(
      (got) =>
        new Set(got.map((g) => `${g.headers["x-platform-bot-api-secret-token"]}:${g.update.update_id}`)).size >= total,
      recoveryMs,
    );
    await new Promise((r) => setTimeout(r, 500)); // anything still arriving would be a surplus duplicate

    // Per bot and chat: the arrival order, with consecutive repeats removed, is exactly the ids pushed.
    const arrivals = new Map<string, { id: number; port: number }[]>();
    for (const g of receiver.received) {
      const botId = secretOf.get(String(g.headers["x-platform-bot-api-secret-token"]))!;
      const key = `${botId}:${g.update.message.chat.id}`;
      if (!arrivals.has(key)) arrivals.set(key, []);
      arrivals.get(key)!.push({ id: g.update.update_id, port: g.remotePort });
    }
    expect(arrivals.size).toBe(BOTS * CHATS_PER_BOT);
    let duplicates = 0;
    for (const [key, list] of arrivals) {
      const distinct: number[] = [];
      for (const [i, a] of list.entries()) {
        if (i > 0 && list[i - 1]!.id === a.id) {
          duplicates++;
          // A repeat is an update that was in flight when the worker died: its first copy came
          // over one of the victim's connections (read by the receiver maybe only after the kill).
          expect(victimPorts.has(list[i - 1]!.port)).toBe(true);
        } else distinct.push(a.id);
      }
      const [botId, chat] = key.split(":").map(Number);
      const expected = pushed.get(botId!)!.filter((_, i) => i % CHATS_PER_BOT === chat! - 1);
      expect(distinct).toEqual(expected);
    }
    // At most max_connections requests per bot were in flight.
    expect(duplicates).toBeLessThanOrEqual(BOTS * 40);
    expect(receiver.received.length).toBe(total + duplicates);
    if (process.env.CRASH_TEST_REPORT) console.log({ counts, atKill, duplicates, victimPorts: victimPorts.size });
  }, 240_000);
});
