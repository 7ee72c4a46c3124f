import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  botClient,
  botSlot,
  eventually,
  startLocalStack,
  startReceiver,
  userMessage,
  type LocalStack,
  type Receiver,
} from "@starpost/testkit";

/**
 * kill -9 of a Redis Cluster master under load — pushes, long polls, webhook delivery, payments —
 * with REDIS_WAIT_REPLICAS=1. Its replica is promoted, the killed node comes back as a replica
 * (as a supervisor would restart it), and starpost carries on without a restart of any service.
 * Every update and payment the API acknowledged must reach the bot and the ledger.
 *
 * FAILOVER_WAIT_REPLICAS=0 runs it without the wait, to measure what asynchronous replication
 * loses (then it reports the losses instead of requiring none).
 */
const WAIT_REPLICAS = process.env.FAILOVER_WAIT_REPLICAS ?? "1";

const PER_MASTER = 2; // one polling and paying bot, one webhook bot, on each master
let local: LocalStack;
let receiver: Receiver;

beforeAll(async () => {
  local = await startLocalStack({
    cluster: true,
    env: { LOG_LEVEL: "warn", REDIS_WAIT_REPLICAS: WAIT_REPLICAS },
    extraEnv: { REDIS_WAIT_TIMEOUT_MS: "1000", WEBHOOK_RECONCILE_MS: "1000", WEBHOOK_BACKOFF_SCALE: "0.01" },
  });
  receiver = await startReceiver();
}, 120_000);
afterAll(async () => {
  await local?.stop();
  await receiver?.close();
});

interface Call {
  botId: number;
  startedAt: number;
  at: number;
  ok: boolean;
}

async function tryCall(fn: () => Promise<{ status: number; body: any }>): Promise<{ ok: boolean; body: any }> {
  try {
    const r = await fn();
    return { ok: r.status === 200 && r.body?.ok === true, body: r.body };
  } catch {
    return { ok: false, body: undefined };
  }
}

describe(`a Redis Cluster master killed under load (REDIS_WAIT_REPLICAS=${WAIT_REPLICAS})`, () => {
  it("is replaced by its replica; calls succeed again without a restart and nothing acknowledged is lost", async () => {
    const { stack, platform, cluster } = local;
    const masters = await cluster!.masters();
    const bots = await Promise.all(Array.from({ length: masters.length * PER_MASTER }, () => platform.createBot()));
    const polling = bots.filter((_, i) => Math.floor(i / masters.length) === 0);
    const hooked = bots.filter((_, i) => Math.floor(i / masters.length) === 1);
    const call = (bot: { token: string }) => botClient(stack.gatewayUrl, bot.token);
    for (const bot of polling)
      expect((await platform.putChat(bot.id, { id: 42, type: "private", first_name: "Payer" })).status).toBe(200);
    for (const bot of hooked)
      expect((await call(bot)("setWebhook", { url: receiver.url, secret_token: `s${bot.id}` })).body.ok).toBe(true);

    const victimSlot = botSlot(polling[0]!.id);
    const victim = await cluster!.masterOf(victimSlot);
    const onVictim = new Set<number>();
    for (const bot of bots) if ((await cluster!.masterOf(botSlot(bot.id))) === victim) onVictim.add(bot.id);
    expect(onVictim.size).toBe(PER_MASTER);

    const acked = new Map<number, Set<number>>(bots.map((b) => [b.id, new Set()])); // update ids the API acknowledged
    const paid = new Map<number, Set<string>>(polling.map((b) => [b.id, new Set()])); // charges the payer heard "paid" for
    const seen = new Map<number, Set<number>>(bots.map((b) => [b.id, new Set()])); // update ids the bots got
    const calls: Call[] = [];
    let stop = false;

    const pusher = async (bot: { id: number }) => {
      while (!stop) {
        const startedAt = Date.now();
        const r = await tryCall(() => platform.pushUpdate(bot.id, userMessage(42, `m${Date.now()}`)));
        calls.push({ botId: bot.id, startedAt, at: Date.now(), ok: r.ok });
        if (r.ok) acked.get(bot.id)!.add(r.body.result.update_id);
        else await new Promise((res) => setTimeout(res, 50)); // a failing call is retried, not hammered
      }
    };
    const poller = async (bot: { id: number; token: string }) => {
      let offset = 0;
      while (!stop) {
        const r = await tryCall(() => call(bot)("getUpdates", { offset, timeout: 1 }));
        if (!r.ok) {
          await new Promise((res) => setTimeout(res, 50));
          continue;
        }
        for (const u of r.body.result) {
          seen.get(bot.id)!.add(u.update_id);
          offset = u.update_id + 1;
          if (u.pre_checkout_query)
            void tryCall(() =>
              call(bot)("answerPreCheckoutQuery", { pre_checkout_query_id: u.pre_checkout_query.id, ok: true }),
            );
        }
      }
    };
    const payer = async (bot: { id: number; token: string }) => {
      while (!stop) {
        const sent = await tryCall(() =>
          call(bot)("sendInvoice", {
            chat_id: 42,
            title: "T",
            description: "D",
            payload: "p",
            currency: "XTR",
            prices: [{ label: "x", amount: 1 }],
          }),
        );
        if (!sent.ok) {
          await new Promise((res) => setTimeout(res, 50));
          continue;
        }
        const r = await tryCall(() =>
          platform.call("POST", `/bots/${bot.id}/payments`, {
            chat_id: 42,
            message_id: sent.body.result.message_id,
            user: { id: 42, first_name: "Payer" },
          }),
        );
        if (r.ok && r.body.result.status === "paid") paid.get(bot.id)!.add(r.body.result.telegram_payment_charge_id);
      }
    };
    const load = [...bots.map(pusher), ...polling.map(poller), ...polling.map(payer)];

    // Some load before the kill, on every bot.
    await eventually(
      () => [...acked.values()].every((s) => s.size >= 5) && [...paid.values()].every((s) => s.size >= 1),
      30_000,
      "load on every bot",
    );
    const killedAt = Date.now();
    await cluster!.kill(victim);
    await eventually(
      async () => (await cluster!.masterOf(victimSlot).catch(() => victim)) !== victim,
      30_000,
      "the replica to be promoted",
    );
    const promotedAt = Date.now();
    await cluster!.restart(victim); // it rejoins as the new master's replica, so WAIT 1 can succeed again
    await cluster!.waitHealthy(30_000);
    // Recovery: the first push to a bot of the failed master, started after the kill, that succeeded.
    const firstOk = () => calls.find((c) => c.ok && c.startedAt > killedAt && onVictim.has(c.botId));
    await eventually(() => firstOk() !== undefined, 30_000, "a push to a bot of the failed master to succeed");
    const paidBefore = [...paid.values()].reduce((a, s) => a + s.size, 0);
    await eventually(
      () => [...paid.values()].reduce((a, s) => a + s.size, 0) >= paidBefore + 3,
      30_000,
      "payments after the failover",
    );
    stop = true;
    await Promise.all(load);

    // Every acknowledged update reached its bot (long poll or webhook).
    const hookSecrets = new Map(hooked.map((b) => [`s${b.id}`, b.id]));
    const missing = () => {
      for (const g of receiver.received)
        seen.get(hookSecrets.get(String(g.headers["x-telegram-bot-api-secret-token"]))!)?.add(g.update.update_id);
      return bots.flatMap((b) =>
        [...acked.get(b.id)!].filter((id) => !seen.get(b.id)!.has(id)).map((id) => `${b.id}/${id}`),
      );
    };
    // The polling bots read what is left.
    for (const bot of polling) {
      let offset = Math.max(0, ...seen.get(bot.id)!) + 1;
      for (;;) {
        const r = await call(bot)("getUpdates", { offset, timeout: 0 });
        expect(r.body.ok).toBe(true);
        if (r.body.result.length === 0) break;
        for (const u of r.body.result) seen.get(bot.id)!.add(u.update_id);
        offset = r.body.result.at(-1).update_id + 1;
      }
    }
    if (WAIT_REPLICAS !== "0") {
      await eventually(
        () => missing().length === 0,
        30_000,
        () => `acknowledged updates to arrive; missing ${missing().slice(0, 10).join(", ")}`,
      );
    } else {
      const drained = async () => {
        for (const bot of hooked)
          if ((await call(bot)("getWebhookInfo")).body.result.pending_update_count > 0) return false;
        return true;
      };
      await eventually(drained, 30_000, "the webhook bots' logs to drain");
    }
    const lostUpdates = missing().length;

    // Every payment the payer heard "paid" for is in the bot's ledger.
    let lostPayments = 0;
    for (const bot of polling) {
      const ledger = new Set<string>();
      for (let offset = 0; ; offset += 100) {
        const page = (await call(bot)("getStarTransactions", { offset, limit: 100 })).body.result.transactions as {
          id: string;
        }[];
        for (const t of page) ledger.add(t.id);
        if (page.length < 100) break;
      }
      lostPayments += [...paid.get(bot.id)!].filter((id) => !ledger.has(id)).length;
    }
    if (WAIT_REPLICAS !== "0") expect(lostPayments + lostUpdates).toBe(0);

    // No service process was restarted or died.
    expect(
      stack.processes.filter((p) => p.child.exitCode !== null || p.child.signalCode !== null).map((p) => p.name),
    ).toEqual([]);
    const figures = {
      recoveryMs: firstOk()!.at - killedAt,
      promotionMs: promotedAt - killedAt,
      failedCalls: calls.filter((c) => !c.ok).length,
      acknowledgedUpdates: [...acked.values()].reduce((a, s) => a + s.size, 0),
      lostUpdates,
      paidPayments: [...paid.values()].reduce((a, s) => a + s.size, 0),
      lostPayments,
    };
    console.log("failover", JSON.stringify(figures));
    expect(figures.recoveryMs).toBeLessThan(60_000);
  }, 240_000);
});
