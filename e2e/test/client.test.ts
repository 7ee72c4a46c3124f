import { randomBytes } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import { Bot, GrammyError, InlineKeyboard, webhookCallback } from "grammy";
import { Starpost, StarpostError } from "@starpost/client";
import { onCleanup, serve, until, useE2E } from "./support.ts";

// @starpost/client plays the user of a grammY bot served by webhook, against the compose topology.

const e2e = useE2E();
let sp: Starpost;
beforeAll(() => {
  sp = new Starpost({ url: e2e.apiRoot, platformToken: e2e.platform.token });
});

const username = () => `c${randomBytes(5).toString("hex")}_bot`;

describe("@starpost/client against a webhook bot", () => {
  it("sends, reads the bot's reply, presses its button, sees the answer and the edit; scripted faults and the request log", async () => {
    const created = await sp.createBot({ username: username() });
    const bot = new Bot(created.token, { client: { apiRoot: e2e.apiRoot } });
    const errors: GrammyError[] = [];
    // webhookCallback hands errors to the HTTP layer (bot.catch is for polling): keep them here.
    bot.use(async (_ctx, next) => {
      try {
        await next();
      } catch (err) {
        if (err instanceof GrammyError) errors.push(err);
        else throw err;
      }
    });
    bot.command("start", (ctx) =>
      ctx.reply("Pick a <b>size</b>", {
        parse_mode: "HTML",
        reply_markup: new InlineKeyboard().text("Small", "size:s"),
      }),
    );
    bot.callbackQuery("size:s", async (ctx) => {
      await ctx.answerCallbackQuery({ text: "Small it is" });
      await ctx.editMessageText("You picked small");
    });
    const secret = randomBytes(16).toString("hex");
    const server = await serve(e2e, webhookCallback(bot, "http", { secretToken: secret }));
    onCleanup(() => server.close());
    await bot.api.setWebhook(server.url("/hook"), { secret_token: secret });

    const chat = await created.privateChat({ first_name: "Ann" });
    const sent = await chat.send("/start");
    expect(sent.entities).toEqual([{ type: "bot_command", offset: 0, length: 6 }]);
    const reply = await chat.nextBotMessage({ timeoutMs: 15_000 });
    expect(reply).toMatchObject({
      text: "Pick a size",
      entities: [{ type: "bold", offset: 7, length: 4 }],
      from: { id: created.id, is_bot: true },
    });
    expect(reply.reply_markup?.inline_keyboard[0]![0]).toEqual({ text: "Small", callback_data: "size:s" });

    const pressed = await chat.press(reply, "size:s", { waitAnswerMs: 15_000 });
    expect(pressed.answer).toEqual({ text: "Small it is", show_alert: false, url: "" });
    await until("the edit", async () => (await chat.message(reply.message_id))?.text === "You picked small");
    expect((await chat.message(reply.message_id))?.edit_date).toBeGreaterThan(0);

    // A wrong press changes nothing and says what is wrong, as a StarpostError.
    const wrong = await chat.press(reply, "size:xl").catch((e: unknown) => e);
    expect(wrong).toBeInstanceOf(StarpostError);
    expect(wrong).toMatchObject({
      error_code: 400,
      description: 'Bad Request: message has no button with callback_data "size:xl"',
    });

    await created.failNext("sendMessage", { error_code: 403 });
    expect(await created.faults()).toEqual([{ id: 1, method: "sendMessage", error_code: 403, times: 1 }]);
    await chat.send("/start");
    await until("the bot to see the 403", () => errors.length === 1);
    expect(errors[0]).toMatchObject({ error_code: 403, description: "Forbidden: bot was blocked by the user" });
    const again = await chat.send("/start");
    const second = await chat.nextBotMessage({ timeoutMs: 15_000 });
    expect(second.message_id).toBeGreaterThan(again.message_id);

    const log = await created.requests();
    expect(log.filter((r) => r.method === "sendMessage").map((r) => r.status)).toEqual([200, 403, 200]);
    expect(JSON.stringify(log)).not.toContain(secret);

    await bot.api.deleteWebhook();
    await created.delete();
    await expect(bot.api.getMe()).rejects.toMatchObject({ error_code: 401 });
    await expect(created.requests()).rejects.toMatchObject({ error_code: 404 });
  });

  it("covers the rest of the platform API: tags, listing, token, chats, webhook state, Stars, batches", async () => {
    const tag = `run-${randomBytes(4).toString("hex")}`;
    const a = await sp.createBot({ tag });
    const b = await sp.createBot({ tag, first_name: "Second" });
    expect(a.username).toMatch(/^sp[0-9a-f]{12}_bot$/);
    expect(a.tag).toBe(tag);
    expect(await sp.bots({ tag })).toEqual([
      { id: a.id, username: a.username, first_name: a.username, tag },
      { id: b.id, username: b.username, first_name: "Second", tag },
    ]);

    const old = a.token;
    const fresh = await a.rotateToken();
    expect(a.token).toBe(fresh);
    expect(fresh).not.toBe(old);
    const getMe = (token: string) => fetch(`${e2e.apiRoot}/bot${token}/getMe`).then((r) => r.status);
    expect([await getMe(old), await getMe(fresh)]).toEqual([401, 200]);

    const group = await a.saveChat({ id: -100200, type: "supergroup", title: "Shop fans" });
    expect(group.chat).toEqual({ id: -100200, type: "supergroup", title: "Shop fans" });
    const ann = await a.privateChat({ first_name: "Ann" });
    expect(await a.chats()).toEqual([{ id: -100200, type: "supergroup", title: "Shop fans" }, ann.chat]);

    const pushed = await a.pushUpdates([
      { message: { message_id: 1, date: 1, chat: ann.chat, from: ann.user!, text: "one" } },
      { message: { message_id: 2, date: 1, chat: ann.chat, from: ann.user!, text: "two" } },
    ]);
    expect(pushed.map((p) => p.update_id)).toEqual([1, 2]);
    expect(await a.webhook()).toMatchObject({ url: "", pending_update_count: 2 });
    expect(await a.stars({ limit: 5 })).toEqual({ balance: { amount: 0 }, transactions: [] });
    expect(Math.abs((await a.clock()) - Date.now() / 1000)).toBeLessThan(60);
    await a.advanceClock(3600);
    expect(Math.abs((await a.clock()) - 3600 - Date.now() / 1000)).toBeLessThan(60);
    await a.setUserStars(ann.user!.id, 7);
    expect(await a.users()).toEqual([{ ...ann.user, stars: 7 }]);
    expect(await a.subscriptions()).toEqual([]);
    expect(await ann.paidInvoices()).toEqual({});

    expect(await sp.deleteBots({ tag })).toBe(2);
    expect(await sp.bots({ tag })).toEqual([]);
    expect(await getMe(b.token)).toBe(401);
  });
});
