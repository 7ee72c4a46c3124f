import { beforeAll, describe, expect, it } from "vitest";
import { Bot, InlineKeyboard } from "grammy";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { REPO_ROOT } from "@starpost/testkit";
import { onCleanup, useE2E } from "./support.ts";

// `starpost mcp` driven by the MCP SDK's own client over stdio, against a running stack: the tools
// a coding agent uses to drive a bot under development, around a grammY bot that polls.

const e2e = useE2E();
let mcp: Client;
beforeAll(async () => {
  mcp = new Client({ name: "starpost-test", version: "1.0.0" });
  await mcp.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: ["--import", "tsx", "packages/cli/src/main.ts", "mcp"],
      cwd: REPO_ROOT,
      env: { PATH: process.env.PATH ?? "", STARPOST_URL: e2e.apiRoot, STARPOST_PLATFORM_TOKEN: e2e.platform.token },
      stderr: "inherit",
    }),
  );
  return () => mcp.close();
}, 60_000);

/** A tool's answer: its JSON, or the error text when the tool failed. */
async function call(name: string, args: Record<string, unknown>): Promise<any> {
  const res = (await mcp.callTool({ name, arguments: args })) as { content: { text: string }[]; isError?: boolean };
  const text = res.content[0]!.text;
  return res.isError ? { error: text } : JSON.parse(text);
}

const PERIOD = 2_592_000;

describe("starpost mcp", () => {
  it("lists its tools with their input schemas", async () => {
    const { tools } = await mcp.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(
      [
        "advance_clock",
        "create_bot",
        "pay_invoice",
        "pay_link",
        "press_button",
        "read_activity",
        "read_chat",
        "send_message",
      ].sort(),
    );
    expect(tools.find((t) => t.name === "send_message")?.inputSchema.required).toEqual(["bot_id", "user_id", "text"]);
  });

  it("creates a bot, sends as a user, presses, pays an invoice and a link, reads the chat and the activity, advances the clock", async () => {
    const created = await call("create_bot", { first_name: "Agent Shop" });
    expect(created).toMatchObject({ first_name: "Agent Shop", api_root: e2e.apiRoot });
    const bot = new Bot(created.token, { client: { apiRoot: created.api_root } });
    bot.command("start", (ctx) => ctx.reply("Pick", { reply_markup: new InlineKeyboard().text("Buy", "buy") }));
    bot.callbackQuery("buy", async (ctx) => {
      await ctx.answerCallbackQuery({ text: "Invoice below" });
      await ctx.replyWithInvoice("Pack", "A pack", "pack", "XTR", [{ label: "Pack", amount: 5 }]);
    });
    bot.command("club", async (ctx) =>
      ctx.reply(
        await ctx.api.createInvoiceLink("Club", "Monthly", "club", "", "XTR", [{ label: "Month", amount: 2 }], {
          subscription_period: PERIOD,
        }),
      ),
    );
    bot.on("pre_checkout_query", (ctx) => ctx.answerPreCheckoutQuery(true));
    await new Promise<void>((started) => void bot.start({ timeout: 1, onStart: () => started() }));
    onCleanup(() => bot.stop());

    const user = { bot_id: created.id, user_id: 4242, first_name: "Ann" };
    const sent = await call("send_message", { ...user, text: "/start" });
    expect(sent).toMatchObject({ text: "/start", entities: [{ type: "bot_command", offset: 0, length: 6 }] });
    const [offer] = await call("read_chat", {
      bot_id: created.id,
      chat_id: 4242,
      after_message_id: sent.message_id,
      wait_ms: 10_000,
    });
    expect(offer).toMatchObject({ text: "Pick", reply_markup: { inline_keyboard: [[{ callback_data: "buy" }]] } });
    expect(await call("press_button", { ...user, message_id: offer.message_id, data: "buy" })).toMatchObject({
      answer: { text: "Invoice below" },
    });
    const [invoice] = await call("read_chat", {
      bot_id: created.id,
      chat_id: 4242,
      after_message_id: offer.message_id,
      wait_ms: 10_000,
    });
    expect(invoice.invoice).toMatchObject({ total_amount: 5, currency: "XTR" });
    expect(await call("pay_invoice", { ...user, message_id: invoice.message_id })).toMatchObject({ status: "paid" });
    const { entries } = await call("read_activity", { bot_id: created.id, kinds: ["payment"] });
    expect(entries).toMatchObject([{ kind: "payment", status: "paid", user_id: 4242, amount: 5 }]);

    const club = await call("send_message", { ...user, text: "/club" });
    const history = await call("read_chat", {
      bot_id: created.id,
      chat_id: 4242,
      after_message_id: club.message_id,
      wait_ms: 10_000,
    });
    expect(await call("pay_link", { ...user, link: history.at(-1).text })).toMatchObject({ status: "paid" });
    expect(await call("advance_clock", { bot_id: created.id, seconds: PERIOD })).toMatchObject({ renewals: 1 });
    const renewals = await call("read_activity", { bot_id: created.id, kinds: ["renewal"] });
    expect(renewals.entries).toMatchObject([{ status: "renewed", user_id: 4242, amount: 2 }]);

    expect(await call("press_button", { ...user, message_id: offer.message_id, data: "nope" })).toEqual({
      error: `POST /bots/${created.id}/chats/4242/callback_queries: 400 Bad Request: message has no button with callback_data "nope"`,
    });
  });
});
