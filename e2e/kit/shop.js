// A Stars shop bot, as it would be in its own repository: /buy sends an invoice of 25 Stars, the
// payment is approved and thanked for, /refund gives the last one back. `apiRoot` points it at
// starpost in tests; without it, at Telegram.
import { Bot } from "grammy";

export const PRICE = 25;

export function createShop(token, apiRoot) {
  const bot = new Bot(token, apiRoot ? { client: { apiRoot } } : {});
  const charges = new Map(); // user id -> last charge (a real shop keeps this in its database)
  bot.command("buy", (ctx) =>
    ctx.replyWithInvoice("Sticker pack", "Twenty-five stickers", "pack-25", "XTR", [
      { label: "Sticker pack", amount: PRICE },
    ]),
  );
  bot.on("pre_checkout_query", (ctx) => ctx.answerPreCheckoutQuery(true));
  bot.on("message:successful_payment", async (ctx) => {
    charges.set(ctx.from.id, ctx.message.successful_payment.telegram_payment_charge_id);
    await ctx.reply("Thanks!");
  });
  bot.command("refund", async (ctx) => {
    const charge = charges.get(ctx.from.id);
    if (!charge) return ctx.reply("Nothing to refund.");
    await ctx.api.refundStarPayment(ctx.from.id, charge);
    charges.delete(ctx.from.id);
    await ctx.reply("Refunded");
  });
  return bot;
}
