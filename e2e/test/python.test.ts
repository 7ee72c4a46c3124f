import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { createInterface } from "node:readline";
import { describe, expect, it } from "vitest";
import { botAndUser, pay, useE2E, until } from "./support.ts";

// Another language and another library: python-telegram-bot 13 (Debian's python3-python-telegram-bot,
// installed by scripts/setup.sh), its JSON bodies and its own parsing of every answer.
const SCRIPT = fileURLToPath(new URL("../python/ptb_bot.py", import.meta.url));

const e2e = useE2E();

describe("python-telegram-bot 13.15 with base_url", () => {
  it("sends an invoice, answers the pre-checkout query, sees the payment, sets and deletes a webhook", async () => {
    const { bot, user } = await botAndUser(e2e);
    const child = spawn("/usr/bin/python3", [SCRIPT, e2e.apiRoot, bot.token, String(user.id)], { stdio: ["pipe", "pipe", "inherit"] });
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
      expect(seen.successful_payment).toMatchObject({ payload: "ptb-payload", charge: (verdict as { telegram_payment_charge_id: string }).telegram_payment_charge_id });

      child.stdin!.write("http://127.0.0.1:9/ptb-hook\n");
      expect(await exited).toBe(0);
      expect(seen.webhook).toEqual({ step: "webhook", url: "http://127.0.0.1:9/ptb-hook", max_connections: 3, allowed_updates: ["message"] });
      expect(seen.deleted).toEqual({ step: "deleted", result: true });

      // The service's own state: one transaction of 50 stars, nothing pending, no webhook.
      expect(await e2e.call(bot.token, "getMyStarBalance")).toMatchObject({ amount: 50 });
      expect((await e2e.call(bot.token, "getStarTransactions")).transactions).toHaveLength(1);
      expect(await e2e.call(bot.token, "getWebhookInfo")).toMatchObject({ url: "", pending_update_count: 0 });
    } finally {
      child.kill();
    }
  });

});
