import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Bot } from "grammy";
import { chromium, type BrowserContext, type Page } from "playwright-core";
import {
  botClient,
  REPO_ROOT,
  startReceiver,
  startLocalStack,
  TEST_PLATFORM_TOKEN,
  userMessage,
  type LocalStack,
  type Received,
} from "@starpost/testkit";
import { CLUB, createShopBot, PACK } from "../src/bot.ts";

// The console in Debian's Chromium (scripts/setup.sh installs it for `npm test`), driven by
// playwright-core: a person signs in, opens a chat with the grammY shop, sends /start, presses
// Buy, pays, and sees the thanks and the ledger entry. Screenshots go to test-output/console/.

const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
const SHOTS = join(REPO_ROOT, "test-output/console");
const FLAGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

let stack: LocalStack;
let bot: Bot;
let shop: { id: number; username: string; token: string };
let context: BrowserContext;
let page: Page;
let profile: string;

beforeAll(async () => {
  // Every process of the compose file (a webhook worker too), webhooks to this machine allowed.
  stack = await startLocalStack({
    platformToken: TEST_PLATFORM_TOKEN,
    env: { LOG_LEVEL: "warn", WEBHOOK_ALLOW_PRIVATE_NETWORKS: "true" },
  });
  shop = await stack.platform.createBot({ first_name: "Sticker Shop" });
  bot = createShopBot(shop.token, { apiRoot: stack.gatewayUrl });
  await new Promise<void>((started, failed) => {
    bot.start({ timeout: 10, onStart: () => started() }).catch(failed);
  });
  mkdirSync(SHOTS, { recursive: true });
  profile = mkdtempSync(join(tmpdir(), "starpost-chromium-"));
  context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: FLAGS,
    viewport: { width: 1280, height: 860 },
  });
  page = context.pages()[0] ?? (await context.newPage());
}, 120_000);

afterAll(async () => {
  await context?.close();
  if (profile) rmSync(profile, { recursive: true, force: true });
  await bot?.stop();
  await stack?.stop();
});

const shot = (name: string) => page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: true });

describe("the console", () => {
  it("refuses a bad platform token with the API's 401 description and keeps nothing", async () => {
    await page.goto(`${stack.gatewayUrl}/console`);
    await page.fill("#sign-in input[name=token]", "expired-or-wrong");
    await page.click("#sign-in button");
    await expect.poll(() => page.textContent("#sign-in-error")).toBe("Unauthorized");
    expect(await page.evaluate(() => sessionStorage.length + localStorage.length)).toBe(0);
    const api = await fetch(`${stack.gatewayUrl}/platform/v1/bots`, {
      headers: { authorization: "Bearer expired-or-wrong" },
    });
    expect(await api.json()).toEqual({ ok: false, error_code: 401, description: "Unauthorized" });
  });

  it("walks the Stars shop: /start, Buy, Pay, the thanks and the ledger entry", async () => {
    await page.fill("#sign-in input[name=token]", TEST_PLATFORM_TOKEN);
    await page.click("#sign-in button");
    await page.click(`#bot-list li:has-text("@${shop.username}")`);
    expect(await page.isVisible("#sign-in")).toBe(false);
    expect(page.url()).not.toContain(TEST_PLATFORM_TOKEN);
    expect(await page.evaluate(() => [sessionStorage.getItem("starpost.platformToken"), localStorage.length])).toEqual([
      TEST_PLATFORM_TOKEN,
      0,
    ]);

    await page.fill("#new-chat input[name=id]", "5001");
    await page.fill("#new-chat input[name=first_name]", "Ann");
    await page.click("#new-chat button");
    await page.fill("#compose input[name=text]", "/start");
    await page.click("#compose button");
    const offer = page.locator(".msg.bot", { hasText: "Welcome!" });
    await offer.waitFor();
    expect(await offer.locator("b").textContent()).toBe(PACK.title);
    await shot("1-offer");

    await offer.locator("button", { hasText: "Buy" }).click();
    const card = page.locator(".msg.bot .invoice");
    await card.waitFor();
    expect(await card.textContent()).toContain(PACK.description);
    await page.locator(".msg.bot", { hasText: "Pay below" }).waitFor();
    await shot("2-invoice");

    await card.locator("button.pay").click();
    await page.locator(".msg.service", { hasText: `Payment of ${PACK.price} ⭐ succeeded` }).waitFor();
    await page.locator(".msg.bot", { hasText: "Thanks for your purchase!" }).waitFor();
    expect(await card.locator(".paid").textContent()).toBe("Paid ✓");
    expect(await card.locator("button.pay").count()).toBe(0);
    await expect.poll(() => page.textContent("#balance"), { timeout: 15_000 }).toContain(`${PACK.price} ⭐`);
    expect(await page.locator("#ledger tbody tr").first().textContent()).toContain(`+${PACK.price} ⭐`);
    expect(await page.textContent("#webhook")).toContain("none (getUpdates)");
    await expect
      .poll(async () => page.locator("#requests td", { hasText: "answerPreCheckoutQuery" }).count(), {
        timeout: 15_000,
      })
      .toBeGreaterThan(0);
    await shot("3-paid");

    // The console never shows a bot token it was not just given.
    expect(await page.content()).not.toContain(shop.token.split(":")[1]!);
  });

  it("then /refund: the refunded note, the outgoing ledger entry and a zero balance", async () => {
    await page.fill("#compose input[name=text]", "/refund");
    await page.click("#compose button");
    await page.locator(".msg.service", { hasText: `${PACK.price} ⭐ refunded` }).waitFor();
    await page.locator(".msg.bot", { hasText: `Refunded ${PACK.price} ⭐` }).waitFor();
    await expect.poll(() => page.textContent("#balance"), { timeout: 15_000 }).toContain("balance 0 ⭐");
    expect(await page.locator("#ledger tbody tr").first().textContent()).toContain(`−${PACK.price} ⭐`);
    await shot("4-refunded");
  });

  it("shows the server's truth: the club paid by its link, the clock advanced, the renewal, the paid invoice after a reload; faults and parameters", async () => {
    await page.fill("#compose input[name=text]", "/club");
    await page.click("#compose button");
    await page.locator(".msg.bot button.pay-link").click();
    await page.locator(".msg.service", { hasText: `Payment of ${CLUB.price} ⭐ succeeded` }).waitFor();
    const club = page.locator("#subscriptions tbody tr", { hasText: "Ann" });
    await expect.poll(() => club.textContent(), { timeout: 15_000 }).toContain("active");
    expect(await club.locator("td").last().textContent()).toBe("0");
    const before = await page.textContent("#clock");

    await page.fill("#advance-clock input[name=days]", "30");
    await page.click("#advance-clock button");
    await expect.poll(() => club.locator("td").last().textContent(), { timeout: 15_000 }).toBe("1");
    expect(await page.textContent("#clock")).not.toBe(before);
    expect(await page.textContent("#users")).toContain("Ann (5001)unlimited");

    await page.fill("#add-fault input[name=method]", "getMe");
    await page.click("#add-fault button");
    await page.locator("#faults li", { hasText: "getMe: 429" }).waitFor();
    await page.click("#clear-faults");
    await expect.poll(() => page.locator("#faults li").count()).toBe(0);
    await expect
      .poll(() => page.locator("#requests td.params", { hasText: '"chat_id"' }).count(), { timeout: 15_000 })
      .toBeGreaterThan(0);

    // After a reload the console knows only what the server says.
    await page.reload();
    await page.click(`#bot-list li:has-text("@${shop.username}")`);
    await page.click('#chat-list li:has-text("Ann")');
    const card = page.locator(".msg.bot .invoice");
    await card.waitFor();
    expect(await card.locator(".paid").textContent()).toBe("Paid ✓");
    expect(await card.locator("button.pay").count()).toBe(0);
    await expect.poll(() => club.locator("td").last().textContent(), { timeout: 15_000 }).toBe("1");
    expect(await club.textContent()).toContain(`${CLUB.price} ⭐ / 30 d`);
    await shot("5-club-renewed");
  });

  it("shows a webhook bot's recent attempts, from the activity log", async () => {
    const hooked = await stack.platform.createBot({ first_name: "Hooked" });
    const receiver = await startReceiver();
    try {
      await botClient(stack.gatewayUrl, hooked.token)("setWebhook", { url: receiver.url });
      // Only this bot's requests count: the port may have served another test's receiver before,
      // whose bot still retries there.
      const got = (text: string) => (all: Received[]) => all.some((r) => r.update?.message?.text === text);
      await stack.platform.pushUpdate(hooked.id, userMessage(77, "hello"));
      await receiver.waitFor(got("hello"), 15_000);
      receiver.answer = () => ({ status: 500 });
      await stack.platform.pushUpdate(hooked.id, userMessage(78, "again"));
      await receiver.waitFor(got("again"), 15_000);
      await page.reload(); // the bot list as it is now
      await page.click(`#bot-list li:has-text("@${hooked.username}")`);
      const rows = page.locator("#attempts tbody tr");
      // Newest first: the failures (retried meanwhile), then the first update's success.
      await expect.poll(() => rows.count(), { timeout: 15_000 }).toBeGreaterThanOrEqual(2);
      expect(await rows.first().textContent()).toContain("Wrong response from the webhook: 500 Internal Server Error");
      expect(await rows.last().textContent()).toContain("200 OK");
    } finally {
      await receiver.close();
    }
  });

  it("creates a bot and shows its token once, rotates it (the old one fails at once), deletes it", async () => {
    page.on("dialog", (d) => void d.accept());
    const username = `console${Date.now().toString(36)}_bot`;
    await page.fill("#create-bot input[name=username]", username);
    await page.fill("#create-bot input[name=first_name]", "Console");
    await page.click("#create-bot button");
    const shown = async () => /: (\d+:\S+)$/.exec((await page.textContent("#token-notice")) ?? "")?.[1];
    await expect.poll(shown).toBeDefined();
    const first = (await shown())!;
    expect((await botClient(stack.gatewayUrl, first)("getMe")).body.result.username).toBe(username);
    await expect.poll(() => page.textContent("#bot-title")).toBe(`Console (@${username})`);

    await page.click("#rotate");
    await expect.poll(shown).not.toBe(first);
    const second = (await shown())!;
    expect((await botClient(stack.gatewayUrl, first)("getMe")).status).toBe(401);
    expect((await botClient(stack.gatewayUrl, second)("getMe")).status).toBe(200);

    await page.click("#delete");
    await expect.poll(() => page.locator(`#bot-list li:has-text("@${username}")`).count()).toBe(0);
    expect(await page.isVisible("#token-notice")).toBe(false);
    expect((await botClient(stack.gatewayUrl, second)("getMe")).status).toBe(401);
  });
});
