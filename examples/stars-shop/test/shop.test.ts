import { randomBytes } from "node:crypto";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { Bot } from "grammy";
import { Starpost, type StarpostChat } from "@starpost/client";
import { startLocalStack, type LocalStack } from "@starpost/testkit";
import { createShopBot, PACK } from "../src/bot.ts";

// The shop bot, unmodified, against starpost; @starpost/client plays the customer. Point it at a
// running starpost with STARPOST_URL and STARPOST_PLATFORM_TOKEN, or the test starts its own.

let local: LocalStack | undefined;
let url: string;
let sp: Starpost;
beforeAll(async () => {
  if (process.env.STARPOST_URL && process.env.STARPOST_PLATFORM_TOKEN) {
    url = process.env.STARPOST_URL;
    sp = new Starpost({ url, platformToken: process.env.STARPOST_PLATFORM_TOKEN });
  } else {
    local = await startLocalStack({ env: { LOG_LEVEL: "warn" } });
    url = local.gatewayUrl;
    sp = new Starpost({ url, platformToken: local.platformToken });
  }
});
/** This run's bots: deleted together at the end, which matters on a shared starpost (STARPOST_URL). */
const tag = `stars-shop-${randomBytes(4).toString("hex")}`;
afterAll(async () => {
  await sp?.deleteBots({ tag });
  await local?.stop();
});

let running: Bot | undefined;
afterEach(async () => {
  await running?.stop();
  running = undefined;
});

/** A fresh shop bot, polling, and a customer's private chat with it. */
async function openShop() {
  const shop = await sp.createBot({ tag });
  const bot = createShopBot(shop.token, { apiRoot: url });
  await new Promise<void>((started, failed) => {
    bot.start({ timeout: 10, onStart: () => started() }).catch(failed);
  });
  running = bot;
  const chat = await shop.privateChat({ first_name: "Ann" });
  return { shop, chat };
}

/** /start, then Buy: the offer edited and the invoice that follows it. */
async function buy(chat: StarpostChat) {
  await chat.send("/start");
  const offer = await chat.nextBotMessage();
  expect(offer.text).toBe(`Welcome! A ${PACK.title} costs ${PACK.price} ⭐`);
  expect(offer.entities).toEqual([{ type: "bold", offset: 11, length: PACK.title.length }]);
  const pressed = await chat.press(offer, "buy");
  expect(pressed.answer?.text).toBe("Here is your invoice");
  const invoice = await chat.nextBotMessage();
  expect(invoice.invoice).toMatchObject({ title: PACK.title, currency: "XTR", total_amount: PACK.price });
  return { offer, invoice };
}

describe("the Stars shop", () => {
  it("/start → Buy → invoice (the offer edited) → pay → thanks → /refund → refunded", async () => {
    const { shop, chat } = await openShop();
    const { offer, invoice } = await buy(chat);
    const edited = await chat.message(offer.message_id);
    expect(edited).toMatchObject({ text: `You chose the ${PACK.title}. Pay below 👇` });
    expect(edited?.reply_markup).toBeUndefined();

    const paid = await chat.pay(invoice);
    expect(paid.status).toBe("paid");
    const thanks = await chat.nextBotMessage();
    expect(thanks.text).toBe(`Thanks for your purchase! Send /refund to get your ${PACK.price} ⭐ back.`);

    await chat.send("/refund");
    expect((await chat.nextBotMessage()).text).toBe(`Refunded ${PACK.price} ⭐`);
    const history = await chat.messages();
    const charge = paid.status === "paid" ? paid.telegram_payment_charge_id : "";
    expect(history.find((m) => m.successful_payment)?.successful_payment?.telegram_payment_charge_id).toBe(charge);
    expect(history.find((m) => m.refunded_payment)?.refunded_payment?.telegram_payment_charge_id).toBe(charge);
    const calls = (await shop.requests()).map((r) => r.method);
    expect(calls).toEqual(
      expect.arrayContaining([
        "sendMessage",
        "answerCallbackQuery",
        "editMessageText",
        "sendInvoice",
        "answerPreCheckoutQuery",
        "refundStarPayment",
      ]),
    );
  });

  it("sendInvoice fails once with 429; @grammyjs/auto-retry waits retry_after and gets the invoice through", async () => {
    const { shop, chat } = await openShop();
    await shop.failNext("sendInvoice", { error_code: 429, retry_after: 1 });
    const { invoice } = await buy(chat);
    const sends = (await shop.requests()).filter((r) => r.method === "sendInvoice");
    expect(sends.map((r) => [r.status, r.description ?? "ok"])).toEqual([
      [429, "Too Many Requests: retry after 1"],
      [200, "ok"],
    ]);
    expect((await chat.pay(invoice)).status).toBe("paid");
    expect(await shop.faults()).toEqual([]);
  });
});
