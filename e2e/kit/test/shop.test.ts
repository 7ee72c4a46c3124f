// vitest (with test/starpost.setup.ts), and type-checked by `tsc --noEmit`.
import { afterAll, afterEach, expect, test } from "vitest";
import { Starpost } from "@starpost/client";
import { createShop, PRICE } from "../shop.js";

const sp = Starpost.fromEnv();
const tag = `vitest-${process.pid}-${Date.now()}`; // this run's bots, deleted together at the end
afterAll(() => sp.deleteBots({ tag }));

let stop: (() => Promise<void>) | undefined;
afterEach(() => stop?.());

test("sells a Sticker pack for Stars, is paid, refunds it", async () => {
  const shop = await sp.createBot({ tag });
  const bot = createShop(shop.token, sp.url);
  await new Promise<void>((started) => void bot.start({ onStart: () => started() }));
  stop = () => bot.stop();

  const chat = await shop.privateChat({ first_name: "Ann" });
  await chat.send("/buy");
  const invoice = await chat.nextBotMessage();
  expect(invoice.invoice?.total_amount).toBe(PRICE);

  const paid = await chat.pay(invoice);
  expect(paid.status).toBe("paid");
  expect((await chat.nextBotMessage()).text).toBe("Thanks!");

  await chat.send("/refund");
  expect((await chat.nextBotMessage()).text).toBe("Refunded");
  const { balance, transactions } = await shop.stars();
  expect(balance.amount).toBe(0);
  expect(transactions.map((tx) => tx.amount)).toEqual([PRICE, PRICE]);
  expect(await sp.bots({ tag })).toHaveLength(1);
});
