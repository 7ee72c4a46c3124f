import { Bot, InlineKeyboard } from "grammy";
import { autoRetry } from "@grammyjs/auto-retry";

/** What the shop sells: one pack, paid in Stars (XTR). */
export const PACK = {
  title: "Sticker pack",
  description: "Twenty-five hand-drawn stickers",
  payload: "pack-25",
  price: 25,
};

/** And a subscription: a new pack every 30 days, paid through an invoice link (/club). */
export const CLUB = { title: "Sticker club", price: 10, period: 2_592_000 };

/**
 * A Stars shop: /start shows the offer with a Buy button; /club sends the club's invoice link; a press turns the offer into an
 * invoice; a payment is approved and thanked for; /refund gives the last payment back.
 * `apiRoot` points the bot at starpost (or at Telegram, when omitted).
 */
export function createShopBot(token: string, opts: { apiRoot?: string } = {}): Bot {
  const bot = new Bot(token, opts.apiRoot ? { client: { apiRoot: opts.apiRoot } } : {});
  // 429s (and 5xx) are waited out and retried, as a bot in production should.
  bot.api.config.use(autoRetry({ maxRetryAttempts: 3, maxDelaySeconds: 10 }));
  /** The last charge of each user, for /refund (a real shop keeps this in its database). */
  const charges = new Map<number, string>();

  bot.command("start", (ctx) =>
    ctx.reply(`Welcome! A <b>${PACK.title}</b> costs ${PACK.price} ⭐`, {
      parse_mode: "HTML",
      reply_markup: new InlineKeyboard().text("Buy", "buy"),
    }),
  );

  bot.callbackQuery("buy", async (ctx) => {
    await ctx.answerCallbackQuery({ text: "Here is your invoice" });
    await ctx.editMessageText(`You chose the ${PACK.title}. Pay below 👇`);
    await ctx.replyWithInvoice(PACK.title, PACK.description, PACK.payload, "XTR", [
      { label: PACK.title, amount: PACK.price },
    ]);
  });

  bot.command("club", async (ctx) =>
    ctx.reply(
      await ctx.api.createInvoiceLink(
        CLUB.title,
        "A new pack every month",
        "club",
        "",
        "XTR",
        [{ label: CLUB.title, amount: CLUB.price }],
        { subscription_period: CLUB.period },
      ),
    ),
  );

  bot.on("pre_checkout_query", (ctx) =>
    [PACK.payload, "club"].includes(ctx.preCheckoutQuery.invoice_payload)
      ? ctx.answerPreCheckoutQuery(true)
      : ctx.answerPreCheckoutQuery(false, "Unknown product"),
  );

  bot.on("message:successful_payment", async (ctx) => {
    charges.set(ctx.from.id, ctx.message.successful_payment.telegram_payment_charge_id);
    await ctx.reply(`Thanks for your purchase! Send /refund to get your ${PACK.price} ⭐ back.`);
  });

  bot.command("refund", async (ctx) => {
    const charge = charges.get(ctx.from!.id);
    if (!charge) return ctx.reply("Nothing to refund.");
    await ctx.api.refundStarPayment(ctx.from!.id, charge);
    charges.delete(ctx.from!.id);
    await ctx.reply(`Refunded ${PACK.price} ⭐`);
  });

  return bot;
}
