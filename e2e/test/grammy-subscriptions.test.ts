import { randomBytes } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import { Bot, GrammyError } from "grammy";
import type { Update } from "grammy/types";
import { Starpost } from "@starpost/client";
import { onCleanup, until, useE2E } from "./support.ts";

// A grammY bot sells a monthly Star subscription; @starpost/client plays its subscribers and moves
// the bot's clock a month at a time.

const e2e = useE2E();
let sp: Starpost;
beforeAll(() => {
  sp = new Starpost({ url: e2e.apiRoot, platformToken: e2e.platform.token });
});

const PERIOD = 2_592_000;
const PRICE = 10;

/** An update in a few words, to compare the exact sequence the bot received. */
function summary(u: Update, names: Map<number, string>): string {
  const who = (id: number) => names.get(id) ?? String(id);
  if (u.pre_checkout_query) return `pre_checkout_query ${who(u.pre_checkout_query.from.id)}`;
  const m = u.message!;
  if (m.successful_payment)
    return `paid ${who(m.chat.id)} ${m.successful_payment.is_first_recurring ? "first" : "renewal"}`;
  if (m.refunded_payment) return `refunded ${who(m.chat.id)}`;
  return `${who(m.chat.id)}: ${m.text}`;
}

describe("grammY sells a Star subscription", () => {
  it("first payments, three renewals by the clock, cancel with no fourth, re-enable, a renewal short of Stars, a refund of a renewal", async () => {
    const shop = await sp.createBot({ username: `sub${randomBytes(4).toString("hex")}_bot` });
    const bot = new Bot(shop.token, { client: { apiRoot: e2e.apiRoot } });
    const updates: Update[] = [];
    const firstCharge = new Map<number, string>();
    bot.use((ctx, next) => {
      updates.push(ctx.update);
      return next();
    });
    bot.command("join", async (ctx) => {
      const link = await ctx.api.createInvoiceLink(
        "Club",
        "The monthly club",
        "club-month",
        "",
        "XTR",
        [{ label: "Month", amount: PRICE }],
        { subscription_period: PERIOD },
      );
      await ctx.reply(link);
    });
    bot.on("pre_checkout_query", (ctx) =>
      ctx.answerPreCheckoutQuery(ctx.preCheckoutQuery.invoice_payload === "club-month"),
    );
    bot.on("message:successful_payment", (ctx) => {
      const p = ctx.message.successful_payment;
      if (p.is_first_recurring) firstCharge.set(ctx.from.id, p.telegram_payment_charge_id);
    });
    bot.command(["stop", "resume"], async (ctx) => {
      await ctx.api.editUserStarSubscription(
        ctx.from!.id,
        firstCharge.get(ctx.from!.id)!,
        ctx.message!.text === "/stop",
      );
      await ctx.reply("done");
    });
    let started!: () => void;
    const ready = new Promise<void>((r) => (started = r));
    const done = bot.start({ timeout: 30, onStart: () => started() });
    onCleanup(() => bot.stop());
    await ready;

    const ann = await shop.privateChat({ first_name: "Ann" });
    const bob = await shop.privateChat({ first_name: "Bob" });
    const names = new Map([
      [ann.id, "ann"],
      [bob.id, "bob"],
    ]);
    const paidCount = () => updates.filter((u) => u.message?.successful_payment).length;
    const command = async (chat: typeof ann, text: string) => {
      await chat.send(text);
      return (await chat.nextBotMessage()).text!;
    };

    // Ann subscribes (unlimited Stars), then three months pass, one at a time.
    const link = await command(ann, "/join");
    expect(link).toMatch(/^https:\/\/t\.me\/\$/);
    expect(await ann.payLink(link)).toMatchObject({ status: "paid" });
    await until("ann's first payment", () => firstCharge.has(ann.id));
    for (let month = 1; month <= 3; month++) {
      expect(await shop.advanceClock(PERIOD)).toMatchObject({ renewals: 1, ended: 0 });
      await until(`renewal ${month}`, () => paidCount() === 1 + month);
    }
    // Cancelled: the fourth month does not renew and the subscription ends.
    expect(await command(ann, "/stop")).toBe("done");
    expect(await shop.advanceClock(PERIOD)).toMatchObject({ renewals: 0, ended: 1 });

    // Bob has 25 Stars: the first payment (15 left), a cancel and a re-enable, a renewal (5 left), then one he cannot afford.
    await shop.setUserStars(bob.id, 25);
    expect(await bob.payLink(await command(bob, "/join"))).toMatchObject({ status: "paid" });
    await until("bob's first payment", () => firstCharge.has(bob.id));
    expect(await command(bob, "/stop")).toBe("done");
    expect(await command(bob, "/resume")).toBe("done");
    expect(await shop.advanceClock(PERIOD)).toMatchObject({ renewals: 1, ended: 0 });
    expect(await shop.advanceClock(PERIOD)).toMatchObject({ renewals: 0, ended: 1 });
    await until("bob's renewal", () => paidCount() === 6);

    // The bot refunds Ann's second renewal, once.
    const payments = updates.filter((u) => u.message?.successful_payment).map((u) => u.message!);
    const annRenewal2 = payments[2]!.successful_payment!.telegram_payment_charge_id;
    expect(await bot.api.refundStarPayment(ann.id, annRenewal2)).toBe(true);
    const again = await bot.api.refundStarPayment(ann.id, annRenewal2).catch((e: unknown) => e);
    expect(again).toBeInstanceOf(GrammyError);
    expect(again).toMatchObject({ error_code: 400, description: "Bad Request: CHARGE_ALREADY_REFUNDED" });
    const ended = await bot.api
      .editUserStarSubscription(ann.id, firstCharge.get(ann.id)!, false)
      .catch((e: unknown) => e);
    expect(ended).toMatchObject({ error_code: 400, description: "Bad Request: SUBSCRIPTION_EXPIRED" });
    await until("the refunded_payment", () => updates.some((u) => u.message?.refunded_payment));

    expect(updates.map((u) => summary(u, names))).toEqual([
      "ann: /join",
      "pre_checkout_query ann",
      "paid ann first",
      "paid ann renewal",
      "paid ann renewal",
      "paid ann renewal",
      "ann: /stop",
      "bob: /join",
      "pre_checkout_query bob",
      "paid bob first",
      "bob: /stop",
      "bob: /resume",
      "paid bob renewal",
      "refunded ann",
    ]);
    // Each payment as the bot parsed it: the first carries is_first_recurring, each expiration is a month after the last.
    const [annFirst, , , , bobFirst] = payments;
    payments.forEach((m, i) => {
      const first = i === 0 || i === 4 ? m : i < 4 ? annFirst! : bobFirst!;
      const months = i < 4 ? i : i - 4;
      expect(m.successful_payment).toEqual({
        currency: "XTR",
        total_amount: PRICE,
        invoice_payload: "club-month",
        subscription_expiration_date: first.date + (months + 1) * PERIOD,
        is_recurring: true,
        ...(months === 0 ? { is_first_recurring: true } : {}),
        telegram_payment_charge_id: m.successful_payment!.telegram_payment_charge_id,
        provider_payment_charge_id: "",
      });
      expect(m.date).toBe(first.date + months * PERIOD);
    });

    // The ledger: six payments in, the refund out; the balance equals it.
    const { transactions } = await bot.api.getStarTransactions();
    expect(transactions.map((t) => [t.id, t.source ? "in" : "out"])).toEqual([
      ...payments.map((m) => [m.successful_payment!.telegram_payment_charge_id, "in"]),
      [annRenewal2, "out"],
    ]);
    for (const t of transactions)
      expect(t.source ?? t.receiver).toMatchObject({
        type: "user",
        transaction_type: "invoice_payment",
        subscription_period: PERIOD,
      });
    expect((await bot.api.getMyStarBalance()).amount).toBe(5 * PRICE);

    await bot.stop();
    await done;
  });
});
