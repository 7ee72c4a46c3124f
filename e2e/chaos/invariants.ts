import { eventually } from "@starpost/testkit";
import type { ChaosStack } from "./harness.ts";
import type { Bot, Ledger } from "./workload.ts";

/**
 * After the chaos, checked from the outside (Bot API and platform API only): every acknowledged
 * push delivered; every charge in getStarTransactions has exactly one successful_payment the bot
 * received and every successful_payment its charge; the same for refunds and refunded_payment;
 * the balance equals the ledger; what the platform heard "paid" is charged; per-chat order holds
 * on webhooks. Returns the violations (none expected).
 */
export async function checkInvariants(
  s: ChaosStack,
  bots: Bot[],
  ledger: Ledger,
  log: (line: string) => void,
): Promise<string[]> {
  const v: string[] = [];
  // The switching bot ends on polling, so its poller collects whatever is left.
  const toggler = bots.find((b) => b.role === "toggler")!;
  await eventually(
    async () => (await s.bot(toggler.token, "deleteWebhook"))?.body?.ok === true,
    60_000,
    "deleteWebhook of the switching bot",
  );

  const pendingOf = async (b: Bot) =>
    (await s.bot(b.token, "getWebhookInfo"))?.body?.result?.pending_update_count as number | undefined;
  try {
    await eventually(
      async () => (await Promise.all(bots.map(pendingOf))).every((n) => n === 0),
      180_000,
      "every bot's pending updates delivered",
    );
  } catch {
    const left = await Promise.all(bots.map(async (b) => `${b.role} ${b.id}: ${await pendingOf(b)}`));
    v.push(`updates still pending 180 s after the chaos: ${left.join(", ")}`);
  }
  log("chaos: everything delivered; checking the invariants");

  const texts = new Map(
    bots.map((b) => [
      b.id,
      new Set([...ledger.received.get(b.id)!.values()].map((u) => u.message?.text).filter(Boolean)),
    ]),
  );
  const lost = ledger.acked.filter((a) => !texts.get(a.bot)!.has(a.text));
  if (lost.length)
    v.push(
      `${lost.length} acknowledged pushes never delivered, e.g. ${lost
        .slice(0, 5)
        .map((a) => a.text)
        .join(", ")}`,
    );

  for (const bot of bots.filter((b) => b.role.startsWith("shop"))) {
    const txns: any[] = [];
    for (let offset = 0; ; offset += 100) {
      const r = await s.bot(bot.token, "getStarTransactions", { offset, limit: 100 });
      if (r?.status !== 200) throw new Error(`getStarTransactions failed: ${JSON.stringify(r?.body)}`);
      txns.push(...r.body.result.transactions);
      if (r.body.result.transactions.length < 100) break;
    }
    const charges = txns.filter((t) => t.source).map((t) => t.id as string);
    const refunds = txns.filter((t) => t.receiver).map((t) => t.id as string);
    const updates = [...ledger.received.get(bot.id)!.values()];
    const told = (field: string) => {
      const ids = new Map<string, number>();
      for (const u of updates) {
        const id = u.message?.[field]?.telegram_payment_charge_id;
        if (id) ids.set(id, (ids.get(id) ?? 0) + 1);
      }
      return ids;
    };
    const pair = (what: string, ledgerIds: string[], field: string) => {
      const messages = told(field);
      if (new Set(ledgerIds).size !== ledgerIds.length) v.push(`${bot.role}: a ${what} appears twice in the ledger`);
      for (const id of ledgerIds)
        if (messages.get(id) !== 1) v.push(`${bot.role}: ${what} ${id} has ${messages.get(id) ?? 0} ${field} updates`);
      for (const id of messages.keys())
        if (!ledgerIds.includes(id)) v.push(`${bot.role}: ${field} for ${id} without its ${what}`);
    };
    pair("charge", charges, "successful_payment");
    pair("refund", refunds, "refunded_payment");
    const sum = txns.reduce((n, t) => n + (t.source ? t.amount : -t.amount), 0);
    const balance = (await s.bot(bot.token, "getMyStarBalance"))?.body?.result?.amount;
    if (balance !== sum) v.push(`${bot.role}: balance ${balance} != ledger ${sum}`);
    for (const id of ledger.paid.get(bot.id)!)
      if (!charges.includes(id)) v.push(`${bot.role}: the platform heard "paid" for ${id}, which is not charged`);
    for (const id of ledger.refunded.get(bot.id)!)
      if (!refunds.includes(id))
        v.push(`${bot.role}: the bot heard its refund of ${id} done, which is not in the ledger`);
    log(`chaos: ${bot.role}: ${charges.length} charges, ${refunds.length} refunds, balance ${balance}`);
  }

  // Per-chat order on webhooks: acknowledged pushes reach each chat in the order they were acknowledged.
  const seqOf = new Map(ledger.acked.map((a) => [`${a.bot}:${a.text}`, a]));
  const last = new Map<string, number>();
  const seen = new Set<string>();
  for (const { bot, update } of ledger.webhookOrder) {
    if (bots.find((b) => b.id === bot)?.role !== "webhook") continue;
    const a = seqOf.get(`${bot}:${update.message?.text}`);
    if (!a || seen.has(`${bot}:${a.text}`)) continue;
    seen.add(`${bot}:${a.text}`);
    const key = `${bot}:${a.chat}`;
    if ((last.get(key) ?? 0) > a.seq)
      v.push(`webhook order: chat ${a.chat} of bot ${bot} got ${a.seq} after ${last.get(key)}`);
    last.set(key, Math.max(last.get(key) ?? 0, a.seq));
  }
  return v;
}
