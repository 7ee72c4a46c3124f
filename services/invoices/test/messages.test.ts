import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readEntries } from "@starpost/update-log";
import { botClient, startStack, type TestStack } from "@starpost/testkit";

let stack: TestStack;
beforeAll(async () => {
  stack = await startStack();
});
afterAll(() => stack.close());

async function botWithChat(chatId = 501) {
  const bot = await stack.platform.createBot();
  await stack.platform.putChat(bot.id, { id: chatId, type: "private", first_name: "Ann" });
  return { bot, call: botClient(stack.gatewayUrl, bot.token), chatId };
}

const bad = (description: string) => ({
  status: 400,
  body: { ok: false, error_code: 400, description: `Bad Request: ${description}` },
});
const history = async (botId: number, chatId: number, query = "") =>
  (await stack.platform.call("GET", `/bots/${botId}/chats/${chatId}/messages${query}`)).body;

describe("sendMessage", () => {
  it("sends a text with an inline keyboard; the Message has the official keys in order and takes the chat's next id", async () => {
    const { bot, call, chatId } = await botWithChat();
    const keyboard = { inline_keyboard: [[{ text: "Buy", callback_data: "buy" }]] };
    const sent = await call("sendMessage", {
      chat_id: chatId,
      text: "Hello",
      reply_markup: keyboard,
      protect_content: true,
    });
    expect(sent.status).toBe(200);
    const m = sent.body.result;
    expect(Object.keys(m)).toEqual([
      "message_id",
      "from",
      "chat",
      "date",
      "text",
      "reply_markup",
      "has_protected_content",
    ]);
    expect(m).toMatchObject({
      message_id: 1,
      from: { id: bot.id, is_bot: true, username: bot.username },
      chat: { id: chatId, type: "private" },
      text: "Hello",
      reply_markup: keyboard,
    });
    const invoice = await call("sendInvoice", {
      chat_id: chatId,
      title: "T",
      description: "D",
      payload: "p",
      currency: "XTR",
      prices: [{ label: "x", amount: 5 }],
    });
    expect(invoice.body.result.message_id).toBe(2);
    const again = await call("sendMessage", { chat_id: chatId, text: "Again" });
    expect(again.body.result.message_id).toBe(3);
    expect(Object.keys(again.body.result)).toEqual(["message_id", "from", "chat", "date", "text"]);
  });

  it("turns parse_mode into entities and answers malformed markup with td's texts", async () => {
    const { call, chatId } = await botWithChat();
    const html = await call("sendMessage", {
      chat_id: chatId,
      text: '<b>bold</b> <a href="example.com">link</a>',
      parse_mode: "HTML",
    });
    expect(html.body.result).toMatchObject({
      text: "bold link",
      entities: [
        { type: "bold", offset: 0, length: 4 },
        { type: "text_link", offset: 5, length: 4, url: "http://example.com/" },
      ],
    });
    const v2 = await call("sendMessage", {
      chat_id: chatId,
      text: "*b* _i_ __u__ ~s~ ||sp|| `c`",
      parse_mode: "MarkdownV2",
    });
    expect(v2.body.result.entities.map((e: { type: string }) => e.type)).toEqual([
      "bold",
      "italic",
      "underline",
      "strikethrough",
      "spoiler",
      "code",
    ]);
    expect(await call("sendMessage", { chat_id: chatId, text: "Version 1.0", parse_mode: "MarkdownV2" })).toMatchObject(
      bad("can't parse entities: Character '.' is reserved and must be escaped with the preceding '\\'"),
    );
    expect(await call("sendMessage", { chat_id: chatId, text: "<i>a</em>", parse_mode: "HTML" })).toMatchObject(
      bad('can\'t parse entities: Unmatched end tag at byte offset 4, expected "</i>", found "</em>"'),
    );
    expect(await call("sendMessage", { chat_id: chatId, text: "*open", parse_mode: "Markdown" })).toMatchObject(
      bad("can't parse entities: Can't find end of the entity starting at byte offset 0"),
    );
    // A parse_mode other than "" and "none" wins over entities (get_formatted_text, Client.cpp at 01a3679, line 11313).
    const both = await call("sendMessage", {
      chat_id: chatId,
      text: "<b>x</b> y",
      entities: [{ type: "italic", offset: 2, length: 1 }],
      parse_mode: "HTML",
    });
    expect(both.body.result.entities).toEqual([{ offset: 0, length: 1, type: "bold" }]);
    const explicit = await call("sendMessage", {
      chat_id: chatId,
      text: "x y @ann",
      entities: [
        { type: "italic", offset: "2", length: 1, url: "dropped" },
        { type: "mention", offset: 4, length: 4 },
      ],
      parse_mode: "None",
    });
    // JsonEntity's order (line 525): offset, length, type; a mention is TDLib's to find, not the bot's to give.
    expect(explicit.body.result.entities).toEqual([{ offset: 2, length: 1, type: "italic" }]);
    expect(Object.keys(explicit.body.result.entities[0])).toEqual(["offset", "length", "type"]);
  });

  it("refuses empty and too long texts, unknown chats and groups, and stores nothing", async () => {
    const { bot, call, chatId } = await botWithChat();
    await stack.platform.putChat(bot.id, { id: -100, type: "group", title: "G" });
    expect(await call("sendMessage", { chat_id: chatId })).toMatchObject(bad("message text is empty"));
    // TDLib's text for a text that is empty once parsed (MessageEntity.cpp).
    expect(await call("sendMessage", { chat_id: chatId, text: "<b></b>", parse_mode: "HTML" })).toMatchObject(
      bad("text must be non-empty"),
    );
    expect(await call("sendMessage", { chat_id: chatId, text: " \n " })).toMatchObject(bad("text must be non-empty"));
    // TDLib trims spaces and newlines (fix_formatted_text): at the end, cutting entities; at the
    // start, up to the first entity.
    const trimmed = await call("sendMessage", { chat_id: chatId, text: "\n  <b>hi</b> there \n", parse_mode: "HTML" });
    expect(trimmed.body.result).toMatchObject({ text: "hi there", entities: [{ offset: 0, length: 2, type: "bold" }] });
    const kept = await call("sendMessage", { chat_id: chatId, text: " <b> x </b> ", parse_mode: "HTML" });
    expect(kept.body.result).toMatchObject({ text: " x", entities: [{ offset: 0, length: 2, type: "bold" }] });
    expect((await call("sendMessage", { chat_id: chatId, text: "\tx\t" })).body.result.text).toBe("\tx\t");
    expect(await call("sendMessage", { chat_id: chatId, text: "x".repeat(32_769) })).toMatchObject(
      bad("text is too long"),
    );
    expect(await call("sendMessage", { chat_id: chatId, text: "x".repeat(4097) })).toMatchObject(
      bad("message is too long"),
    );
    expect((await call("sendMessage", { chat_id: chatId, text: "😀".repeat(4096) })).status).toBe(200);
    expect(await call("sendMessage", { chat_id: 999, text: "hi" })).toMatchObject(bad("chat not found"));
    expect(await call("sendMessage", { chat_id: -100, text: "hi" })).toMatchObject(
      bad("messages can be sent only to private chats and channels"),
    );
    expect(await call("sendMessage", { chat_id: chatId, text: "hi", parse_mode: "BBCode" })).toMatchObject(
      bad("unsupported parse_mode"),
    );
    // link_preview_options is read first (get_input_message_text, line 11391), for its errors.
    expect(await call("sendMessage", { chat_id: chatId, link_preview_options: "{" })).toMatchObject(
      bad("can't parse link preview options JSON object"),
    );
    expect(
      await call("sendMessage", { chat_id: chatId, text: "hi", link_preview_options: { is_disabled: "yes" } }),
    ).toMatchObject(bad('field "is_disabled" must be of type Boolean'));
    // Entities that do not parse are no entities (get_input_entities, line 11169); a bad one is an error.
    const unparsed = await call("sendMessage", { chat_id: chatId, text: "hi", entities: "[{" });
    expect(unparsed.status).toBe(200);
    expect(unparsed.body.result.entities).toBeUndefined();
    expect(
      await call("sendMessage", { chat_id: chatId, text: "hi", entities: [{ type: "nope", offset: 0, length: 1 }] }),
    ).toMatchObject(bad("can't parse MessageEntity: Unsupported type specified"));
    // TDLib's bounds (MessageEntity.cpp, fix_formatted_text); an empty entity goes.
    expect(
      await call("sendMessage", { chat_id: chatId, text: "hi", entities: [{ type: "bold", offset: -3, length: 2 }] }),
    ).toMatchObject(bad("receive an entity with incorrect offset -3"));
    const empty = await call("sendMessage", {
      chat_id: chatId,
      text: "hi",
      entities: [{ type: "bold", offset: 0, length: 0 }],
    });
    expect(empty.body.result.entities).toBeUndefined();
    expect(
      await call("sendMessage", { chat_id: chatId, text: "hi", entities: [{ type: "bold", offset: 0 }] }),
    ).toMatchObject(bad("can't parse MessageEntity: Can't find field \"length\""));
    const longData = { inline_keyboard: [[{ text: "A", callback_data: "d".repeat(65) }]] };
    expect(await call("sendMessage", { chat_id: chatId, text: "hi", reply_markup: longData })).toMatchObject(
      bad("BUTTON_DATA_INVALID"),
    );
    expect(await call("deleteMessage", { chat_id: chatId })).toMatchObject(bad("message identifier is not specified"));
    expect(await call("deleteMessage", { message_id: 1 })).toMatchObject(bad("chat identifier is not specified"));
    expect(await call("editMessageText", { inline_message_id: "abc", text: "x" })).toMatchObject(
      bad("inline messages are not supported by starpost"),
    );
    expect(await call("editMessageText", { text: "x" })).toMatchObject(bad("message identifier is not specified"));
    expect(await call("editMessageText", { message_id: 1, text: "x" })).toMatchObject(bad("chat_id is empty"));
    // The text is read first (process_edit_message_text_query, line 13503).
    expect(await call("editMessageText", {})).toMatchObject(bad("message text is empty"));
    // The sends that succeeded: "😀"×4096, the three trimmed ones, the one whose entities did not
    // parse and the one whose entity was empty.
    expect((await history(bot.id, chatId)).result.messages).toHaveLength(6);
  });
});

describe("editMessageText, editMessageReplyMarkup, deleteMessage", () => {
  it("edits the bot's own message, says when nothing changed, and deletes", async () => {
    const { bot, call, chatId } = await botWithChat();
    const keyboard = { inline_keyboard: [[{ text: "Buy", callback_data: "buy" }]] };
    const sent = (await call("sendMessage", { chat_id: chatId, text: "Pick", reply_markup: keyboard })).body.result;
    const edited = await call("editMessageText", {
      chat_id: chatId,
      message_id: sent.message_id,
      text: "<i>Picked</i>",
      parse_mode: "HTML",
    });
    expect(Object.keys(edited.body.result)).toEqual([
      "message_id",
      "from",
      "chat",
      "date",
      "edit_date",
      "text",
      "entities",
    ]);
    expect(edited.body.result).toMatchObject({ text: "Picked", entities: [{ type: "italic", offset: 0, length: 6 }] });
    const notModified =
      "message is not modified: specified new message content and reply markup are exactly the same as a current content and reply markup of the message";
    expect(
      await call("editMessageText", {
        chat_id: chatId,
        message_id: sent.message_id,
        text: "<i>Picked</i>",
        parse_mode: "HTML",
      }),
    ).toMatchObject(bad(notModified));
    const marked = await call("editMessageReplyMarkup", {
      chat_id: chatId,
      message_id: sent.message_id,
      reply_markup: keyboard,
    });
    expect(marked.body.result.reply_markup).toEqual(keyboard);
    expect(
      await call("editMessageReplyMarkup", { chat_id: chatId, message_id: sent.message_id, reply_markup: keyboard }),
    ).toMatchObject(bad(notModified));
    expect(await call("editMessageText", { chat_id: chatId, message_id: 77, text: "x" })).toMatchObject(
      bad("message to edit not found"),
    );
    // An edit takes an inline keyboard only (TDLib's ReplyMarkup.cpp); a send takes any kind and shows none.
    for (const other of [{ keyboard: [["Yes"]] }, { remove_keyboard: true }, { force_reply: true }])
      expect(
        await call("editMessageReplyMarkup", { chat_id: chatId, message_id: sent.message_id, reply_markup: other }),
      ).toMatchObject(bad("inline keyboard expected"));

    const shown = (await history(bot.id, chatId)).result.messages;
    expect(shown).toEqual([marked.body.result]);
    expect(await call("deleteMessage", { chat_id: chatId, message_id: sent.message_id })).toMatchObject({
      status: 200,
      body: { ok: true, result: true },
    });
    expect(await call("deleteMessage", { chat_id: chatId, message_id: sent.message_id })).toMatchObject(
      bad("message to delete not found"),
    );
    expect((await history(bot.id, chatId)).result.messages).toEqual([]);
  });

  it("cannot edit the user's message or a message without text", async () => {
    const { bot, call, chatId } = await botWithChat();
    const user = (await stack.platform.call("POST", `/bots/${bot.id}/chats/${chatId}/messages`, { text: "hi" })).body
      .result.message;
    expect(await call("editMessageText", { chat_id: chatId, message_id: user.message_id, text: "x" })).toMatchObject(
      bad("message can't be edited"),
    );
    const invoice = await call("sendInvoice", {
      chat_id: chatId,
      title: "T",
      description: "D",
      payload: "p",
      currency: "XTR",
      prices: [{ label: "x", amount: 5 }],
    });
    expect(
      await call("editMessageText", { chat_id: chatId, message_id: invoice.body.result.message_id, text: "x" }),
    ).toMatchObject(bad("there is no text in the message to edit"));
  });
});

describe("the user's side of a chat (platform API)", () => {
  it("a /command gets its bot_command entity; an unknown positive chat becomes the private chat of from", async () => {
    const bot = await stack.platform.createBot();
    const from = { id: 4242, first_name: "Bea", username: "bea" };
    const res = await stack.platform.call("POST", `/bots/${bot.id}/chats/4242/messages`, {
      text: `/start@${bot.username} now`,
      from,
    });
    expect(res.status).toBe(200);
    const { update_id, message } = res.body.result;
    expect(message).toMatchObject({
      message_id: 1,
      from: { id: 4242, is_bot: false, first_name: "Bea", username: "bea" },
      chat: { id: 4242, first_name: "Bea", username: "bea", type: "private" },
      text: `/start@${bot.username} now`,
      entities: [{ type: "bot_command", offset: 0, length: 7 + bot.username.length }],
    });
    const entries = await readEntries(stack.redis, String(bot.id), 0, 10);
    expect(entries.map((e) => JSON.parse(e.json))).toEqual([{ update_id, message }]);
    const sent = await botClient(stack.gatewayUrl, bot.token)("sendMessage", {
      chat_id: 4242,
      text: "welcome",
      reply_parameters: { message_id: 1 },
    });
    expect(sent.body.result).toMatchObject({ message_id: 2, reply_to_message: message, text: "welcome" });
  });

  it("names what is wrong: unknown chat, message, button; not the bot's message", async () => {
    const { bot, call, chatId } = await botWithChat();
    const sent = (
      await call("sendMessage", {
        chat_id: chatId,
        text: "Pick",
        reply_markup: { inline_keyboard: [[{ text: "A", callback_data: "a" }]] },
      })
    ).body.result;
    const user = (await stack.platform.call("POST", `/bots/${bot.id}/chats/${chatId}/messages`, { text: "hi" })).body
      .result.message;
    const press = (chat: number, body: unknown) =>
      stack.platform.call("POST", `/bots/${bot.id}/chats/${chat}/callback_queries`, body);
    expect(await press(-5, { message_id: 1, data: "a" })).toMatchObject(bad("chat -5 is not known to this bot"));
    expect(await stack.platform.call("POST", `/bots/${bot.id}/chats/-5/messages`, { text: "x" })).toMatchObject(
      bad("chat -5 is not known to this bot"),
    );
    expect(await stack.platform.call("GET", `/bots/${bot.id}/chats/-5/messages`)).toMatchObject(
      bad("chat -5 is not known to this bot"),
    );
    expect(await stack.platform.call("GET", `/bots/${bot.id}/chats/${chatId}/messages?wait_ms=90000`)).toMatchObject(
      bad("wait_ms must be an integer 0-30000"),
    );
    expect(await stack.platform.call("POST", `/bots/${bot.id}/chats/${chatId}/messages`, { text: "" })).toMatchObject(
      bad("text must be a string of 1-4096 characters"),
    );
    expect(await stack.platform.call("POST", `/bots/999999/chats/${chatId}/messages`, { text: "x" })).toMatchObject({
      status: 404,
    });
    expect(await press(chatId, { message_id: 99, data: "a" })).toMatchObject(bad("message 99 is not in this chat"));
    expect(await press(chatId, { message_id: user.message_id, data: "a" })).toMatchObject(
      bad(`message ${user.message_id} was not sent by the bot`),
    );
    expect(await press(chatId, { message_id: sent.message_id, data: "b" })).toMatchObject(
      bad('message has no button with callback_data "b"'),
    );
    expect(await press(chatId, { message_id: "one", data: "a" })).toMatchObject(
      bad("message_id must be a positive integer"),
    );
    expect(await press(chatId, { message_id: sent.message_id })).toMatchObject(bad("data must be a string"));
    expect(await press(chatId, { message_id: sent.message_id, data: "a", wait_answer_ms: 20_000 })).toMatchObject(
      bad("wait_answer_ms must be 0-15000"),
    );
    const say = (chat: number, body: unknown) =>
      stack.platform.call("POST", `/bots/${bot.id}/chats/${chat}/messages`, body);
    expect(await say(chatId + 1000, { text: "x", from: { id: chatId + 1001 } })).toMatchObject(
      bad("from.id must be the chat id in a private chat"),
    );
    await stack.platform.putChat(bot.id, { id: -100, type: "group", title: "G" });
    expect(await say(-100, { text: "x" })).toMatchObject(bad("from is required for a chat that is not private"));
    expect(await readEntries(stack.redis, String(bot.id), 0, 10)).toHaveLength(1);
  });

  it("a press waits for the bot's answerCallbackQuery", async () => {
    const { bot, call, chatId } = await botWithChat();
    const sent = (
      await call("sendMessage", {
        chat_id: chatId,
        text: "Pick",
        reply_markup: { inline_keyboard: [[{ text: "A", callback_data: "a" }]] },
      })
    ).body.result;
    const pressing = stack.platform.call("POST", `/bots/${bot.id}/chats/${chatId}/callback_queries`, {
      message_id: sent.message_id,
      data: "a",
      wait_answer_ms: 10_000,
    });
    let query: any;
    for (let offset = 0; !query;) {
      const got = (await call("getUpdates", { offset, timeout: 5 })).body.result;
      query = got.find((u: any) => u.callback_query)?.callback_query;
      if (got.length) offset = got.at(-1).update_id + 1;
    }
    expect(query).toMatchObject({ from: { id: chatId }, message: sent, data: "a" });
    await call("answerCallbackQuery", { callback_query_id: query.id, text: "Done", show_alert: true });
    const res = await pressing;
    expect(res.body.result).toMatchObject({
      callback_query_id: query.id,
      answer: { text: "Done", show_alert: true, url: "" },
    });
  });

  it("a history read with wait_ms is held until the bot's next message", async () => {
    const { bot, call, chatId } = await botWithChat();
    const user = (await stack.platform.call("POST", `/bots/${bot.id}/chats/${chatId}/messages`, { text: "hi" })).body
      .result.message;
    const reading = history(bot.id, chatId, `?after_message_id=${user.message_id}&wait_ms=10000`);
    // The read registers before it looks: the message may come at any time after the call starts.
    const sent = (await call("sendMessage", { chat_id: chatId, text: "hello back" })).body.result;
    expect((await reading).result.messages).toEqual([sent]);
    const quick = await history(bot.id, chatId, `?after_message_id=${sent.message_id}&wait_ms=50`);
    expect(quick.result.messages).toEqual([]);
    expect((await history(bot.id, chatId, "?limit=1")).result.messages).toEqual([user]);
  });
});
