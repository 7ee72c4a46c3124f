// node --test, against the starpost that STARPOST_URL and STARPOST_PLATFORM_TOKEN name.
import { after, test } from "node:test";
import assert from "node:assert/strict";
import { Starpost } from "@starpost/client";
import { createShop, PRICE } from "../shop.js";

const sp = Starpost.fromEnv();
const tag = `node-test-${process.pid}-${Date.now()}`; // this run's bots, deleted together at the end
after(() => sp.deleteBots({ tag }));

test("sells a Sticker pack for Stars, is paid, refunds it", async (t) => {
  const shop = await sp.createBot({ tag });
  const bot = createShop(shop.token, sp.url);
  await new Promise((started) => void bot.start({ onStart: started }));
  t.after(() => bot.stop());

  const chat = await shop.privateChat({ first_name: "Ann" });
  await chat.send("/buy");
  const invoice = await chat.nextBotMessage();
  assert.equal(invoice.invoice?.total_amount, PRICE);

  const paid = await chat.pay(invoice);
  assert.equal(paid.status, "paid");
  assert.equal((await chat.nextBotMessage()).text, "Thanks!");
  assert.equal((await shop.stars()).balance.amount, PRICE);

  await chat.send("/refund");
  assert.equal((await chat.nextBotMessage()).text, "Refunded");
  const { balance, transactions } = await shop.stars();
  assert.equal(balance.amount, 0);
  assert.deepEqual(
    transactions.map((tx) => tx.amount),
    [PRICE, PRICE],
  );
});
