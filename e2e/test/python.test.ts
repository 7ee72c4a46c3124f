import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { fileURLToPath } from "node:url";
import { createInterface } from "node:readline";
import { beforeAll, describe, expect, it } from "vitest";
import { Starpost } from "@starpost/client";
import { botAndUser, pay, useE2E, until } from "./support.ts";

// Another language and another library: python-telegram-bot 13 (Debian's python3-python-telegram-bot,
// installed by scripts/setup.sh), its JSON bodies and its own parsing of every answer.
const SCRIPT = fileURLToPath(new URL("../python/ptb_bot.py", import.meta.url));
const SUBSCRIPTION_SCRIPT = fileURLToPath(new URL("../python/ptb_subscription_bot.py", import.meta.url));

const e2e = useE2E();
let sp: Starpost;
beforeAll(() => {
  sp = new Starpost({ url: e2e.apiRoot, platformToken: e2e.platform.token });
});

describe("python-telegram-bot 13.15 with base_url", () => {
  it("sends an invoice, answers the pre-checkout query, sees the payment, sets and deletes a webhook", async () => {
    const { bot, user } = await botAndUser(e2e);
    const child = spawn("/usr/bin/python3", [SCRIPT, e2e.apiRoot, bot.token, String(user.id)], {
      stdio: ["pipe", "pipe", "inherit"],
    });
    const seen: Record<string, any> = {};
    createInterface({ input: child.stdout! }).on("line", (line) => {
      const step = JSON.parse(line) as { step: string };
      seen[step.step] = step;
    });
    const exited = new Promise<number | null>((resolve) => child.on("exit", resolve));
    try {
      await until("the invoice", () => seen.send_invoice !== undefined, 20_000);
      expect(seen.get_me).toEqual({ step: "get_me", id: bot.id, username: bot.username, is_bot: true });
      expect(seen.send_invoice).toMatchObject({ currency: "XTR", total: 50 });

      const verdict = await pay(e2e, bot.id, user, seen.send_invoice.message_id);
      expect(verdict.status).toBe("paid");
      await until("the successful payment", () => seen.successful_payment !== undefined, 20_000);
      expect(seen.pre_checkout_query).toMatchObject({ payload: "ptb-payload", total: 50, currency: "XTR" });
      expect(seen.successful_payment).toMatchObject({
        payload: "ptb-payload",
        charge: (verdict as { telegram_payment_charge_id: string }).telegram_payment_charge_id,
      });

      child.stdin!.write("http://127.0.0.1:9/ptb-hook\n");
      expect(await exited).toBe(0);
      expect(seen.webhook).toEqual({
        step: "webhook",
        url: "http://127.0.0.1:9/ptb-hook",
        max_connections: 3,
        allowed_updates: ["message"],
      });
      expect(seen.deleted).toEqual({ step: "deleted", result: true });

      // The service's own state: one transaction of 50 stars, nothing pending, no webhook.
      expect(await e2e.call(bot.token, "getMyStarBalance")).toMatchObject({ amount: 50 });
      expect((await e2e.call(bot.token, "getStarTransactions")).transactions).toHaveLength(1);
      expect(await e2e.call(bot.token, "getWebhookInfo")).toMatchObject({ url: "", pending_update_count: 0 });
    } finally {
      child.kill();
    }
  });

  it("sells a Star subscription: three renewals, cancel with no fourth, re-enable, a renewal short of Stars, a refund of a renewal", async () => {
    const PERIOD = 2_592_000;
    // Registered through the suite's platform, which spreads bots over the masters on a cluster.
    const shop = sp.bot(await e2e.platform.createBot({ username: `ptb${randomBytes(4).toString("hex")}_bot` }));
    const child = spawn("/usr/bin/python3", [SUBSCRIPTION_SCRIPT, e2e.apiRoot, shop.token], {
      stdio: ["ignore", "pipe", "inherit"],
    });
    const seen: any[] = [];
    createInterface({ input: child.stdout! }).on("line", (line) => void seen.push(JSON.parse(line)));
    const exited = new Promise<number | null>((resolve) => child.on("exit", resolve));
    try {
      const ann = await shop.privateChat({ first_name: "Ann" });
      const bob = await shop.privateChat({ first_name: "Bob" });
      const names = new Map([
        [ann.id, "ann"],
        [bob.id, "bob"],
      ]);
      const reply = async (chat: typeof ann, text: string) => {
        await chat.send(text);
        return (await chat.nextBotMessage({ timeoutMs: 20_000 })).text!;
      };
      const payments = () => seen.filter((s) => s.kind === "successful_payment");

      expect(await ann.payLink(await reply(ann, "/join"))).toMatchObject({ status: "paid" });
      await until("ann's first payment", () => payments().length === 1, 20_000);
      for (let month = 1; month <= 3; month++) {
        expect(await shop.advanceClock(PERIOD)).toMatchObject({ renewals: 1, ended: 0 });
        await until(`renewal ${month}`, () => payments().length === 1 + month, 20_000);
      }
      expect(await reply(ann, "/stop")).toBe("edited True");
      expect(await shop.advanceClock(PERIOD)).toMatchObject({ renewals: 0, ended: 1 });
      expect(await reply(ann, "/resume")).toBe("error Subscription_expired"); // PTB capitalizes what follows "Bad Request: ";

      await shop.setUserStars(bob.id, 10);
      expect(await bob.payLink(await reply(bob, "/join"))).toMatchObject({ status: "paid" });
      await until("bob's first payment", () => payments().length === 5, 20_000);
      expect(await reply(bob, "/stop")).toBe("edited True");
      expect(await reply(bob, "/resume")).toBe("edited True");
      // 3 Stars left: the renewal cannot happen and the subscription ends.
      expect(await shop.advanceClock(PERIOD)).toMatchObject({ renewals: 0, ended: 1 });

      const renewal = payments()[2].charge;
      expect(await reply(ann, `/refund ${renewal}`)).toBe("refunded True");
      expect(await reply(ann, `/refund ${renewal}`)).toBe("error Charge_already_refunded");
      await ann.send("/quit");
      expect(await exited).toBe(0);

      expect(seen.map((s) => `${s.kind} ${names.get(s.user)}${s.text ? ` ${s.text}` : ""}`)).toEqual([
        "text ann /join",
        "pre_checkout_query ann",
        "successful_payment ann",
        "successful_payment ann",
        "successful_payment ann",
        "successful_payment ann",
        "text ann /stop",
        "text ann /resume",
        "text bob /join",
        "pre_checkout_query bob",
        "successful_payment bob",
        "text bob /stop",
        "text bob /resume",
        `text ann /refund ${renewal}`,
        "refunded_payment ann",
        `text ann /refund ${renewal}`,
        "text ann /quit",
      ]);
      const [annFirst, , , , bobFirst] = payments();
      payments().forEach((p, i) => {
        const first = i < 4 ? annFirst : bobFirst;
        const months = i < 4 ? i : 0;
        expect(p.date).toBe(first.date + months * PERIOD);
        expect(p.raw).toEqual({
          currency: "XTR",
          total_amount: 7,
          invoice_payload: "ptb-club",
          subscription_expiration_date: first.date + (months + 1) * PERIOD,
          is_recurring: true,
          ...(months === 0 ? { is_first_recurring: true } : {}),
          telegram_payment_charge_id: p.charge,
          provider_payment_charge_id: "",
        });
      });
      expect(seen.find((s) => s.kind === "refunded_payment").charge).toBe(renewal);

      const { transactions } = await e2e.call(shop.token, "getStarTransactions");
      expect(transactions.map((t: any) => [t.id, t.source ? "in" : "out"])).toEqual([
        ...payments().map((p) => [p.charge, "in"]),
        [renewal, "out"],
      ]);
      expect(await e2e.call(shop.token, "getMyStarBalance")).toEqual({ amount: 4 * 7 });
    } finally {
      child.kill();
    }
  });
});
