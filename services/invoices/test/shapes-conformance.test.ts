import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { botClient, startStack, type TestStack } from "@starpost/testkit";
import { waitForUpdate } from "./helpers.ts";

/**
 * Every object starpost writes, field by field against the reference's Json* class that writes it
 * (telegram-bot-api/Client.cpp at 01a3679, the line of its `store`): the fields in the order the
 * class writes them, `?` marking one written only under a condition. An object conforms when its
 * keys appear in that order, every unconditional field is there, and nothing else is.
 */
const SHAPES = {
  User: {
    line: 464,
    fields: ["id", "is_bot", "first_name", "last_name?", "username?", "language_code?", "is_premium?"],
  },
  /** JsonUser with full_bot_info (getMe): every flag always. */
  BotUser: {
    line: 486,
    fields: [
      "id",
      "is_bot",
      "first_name",
      "last_name?",
      "username?",
      "can_join_groups",
      "can_read_all_group_messages",
      "supports_inline_queries",
      "supports_guest_queries",
      "can_connect_to_business",
      "has_main_web_app",
      "has_topics_enabled",
      "allows_users_to_create_topics",
      "can_manage_bots",
    ],
  },
  PrivateChat: { line: 1200, fields: ["id", "first_name", "last_name?", "username?", "type"] },
  GroupChat: {
    line: 1265,
    fields: ["id", "title", "type", "all_members_are_administrators", "accepted_gift_types"],
  },
  ChannelChat: { line: 1294, fields: ["id", "title", "username?", "is_forum?", "is_direct_messages?", "type"] },
  Message: {
    line: 4102,
    fields: [
      "message_id",
      "from?",
      "author_signature?",
      "sender_chat?",
      "chat",
      "date",
      "edit_date?",
      "reply_to_message?",
      "quote?",
      "text?",
      "entities?",
      "link_preview_options?",
      "invoice?",
      "successful_payment?",
      "refunded_payment?",
      "reply_markup?",
      "via_bot?",
      "has_protected_content?",
    ],
  },
  MessageEntity: { line: 525, fields: ["offset", "length", "type", "language?", "url?", "user?", "custom_emoji_id?"] },
  Invoice: { line: 2272, fields: ["title", "description", "start_parameter", "currency", "total_amount"] },
  SuccessfulPayment: {
    line: 3038,
    fields: [
      "currency",
      "total_amount",
      "invoice_payload",
      "shipping_option_id?",
      "order_info?",
      "telegram_payment_charge_id",
      "provider_payment_charge_id",
      "is_recurring?",
      "is_first_recurring?",
      "subscription_expiration_date?",
    ],
  },
  RefundedPayment: {
    line: 3076,
    fields: [
      "currency",
      "total_amount",
      "invoice_payload",
      "telegram_payment_charge_id",
      "provider_payment_charge_id?",
    ],
  },
  InlineKeyboardMarkup: { line: 3898, fields: ["inline_keyboard"] },
  InlineKeyboardButton: {
    line: 3778,
    fields: [
      "text",
      "icon_custom_emoji_id?",
      "style?",
      "url?",
      "callback_data?",
      "callback_game?",
      "switch_inline_query?",
      "switch_inline_query_current_chat?",
      "switch_inline_query_chosen_chat?",
      "pay?",
      "web_app?",
      "copy_text?",
    ],
  },
  CallbackQuery: {
    line: 4876,
    fields: ["id", "from", "message?", "inline_message_id?", "chat_instance", "data?", "game_short_name?"],
  },
  PreCheckoutQuery: {
    line: 4975,
    fields: ["id", "from", "currency", "total_amount", "invoice_payload", "shipping_option_id?", "order_info?"],
  },
  WebhookInfo: {
    line: 5949,
    fields: [
      "url",
      "has_custom_certificate",
      "pending_update_count",
      "last_error_date?",
      "last_error_message?",
      "max_connections?",
      "ip_address?",
      "allowed_updates?",
      "last_synchronization_error_date?",
    ],
  },
  StarTransactions: { line: 5913, fields: ["transactions"] },
  StarTransaction: { line: 5884, fields: ["id", "date", "source?", "receiver?", "amount", "nanostar_amount?"] },
  TransactionPartnerUser: {
    line: 5767,
    fields: ["transaction_type", "type", "user", "invoice_payload?", "subscription_period?", "affiliate?"],
  },
  StarAmount: { line: 1650, fields: ["amount", "nanostar_amount?"] },
} as const;
type ShapeName = keyof typeof SHAPES;

/** What is wrong with `value` as a `name` (empty: it conforms). */
function misfits(name: ShapeName, value: Record<string, unknown>, where: string): string[] {
  const { line, fields } = SHAPES[name];
  const order = fields.map((f) => f.replace(/\?$/, ""));
  const out: string[] = [];
  let last = -1;
  for (const key of Object.keys(value)) {
    const at = order.indexOf(key);
    if (at < 0) out.push(`${where}: ${name} (line ${line}) has no field ${key}`);
    else if (at < last) out.push(`${where}: ${name} (line ${line}) writes ${key} before ${order[last]}`);
    else last = at;
  }
  for (const f of fields)
    if (!f.endsWith("?") && !(f in value)) out.push(`${where}: ${name} (line ${line}) lacks ${f}`);
  return out;
}

type Obj = Record<string, any>;

const chatShape = (chat: Obj): ShapeName =>
  chat.type === "private" ? "PrivateChat" : chat.type === "group" ? "GroupChat" : "ChannelChat";

/** A Message and everything in it. */
function messageMisfits(m: Obj, where: string): string[] {
  const out = misfits("Message", m, where);
  if (m.from) out.push(...misfits("User", m.from, `${where}.from`));
  if (m.sender_chat) out.push(...misfits(chatShape(m.sender_chat), m.sender_chat, `${where}.sender_chat`));
  out.push(...misfits(chatShape(m.chat), m.chat, `${where}.chat`));
  if (m.reply_to_message) out.push(...messageMisfits(m.reply_to_message, `${where}.reply_to_message`));
  (m.entities ?? []).forEach((e: Obj, i: number) =>
    out.push(...misfits("MessageEntity", e, `${where}.entities[${i}]`)),
  );
  if (m.invoice) out.push(...misfits("Invoice", m.invoice, `${where}.invoice`));
  if (m.successful_payment)
    out.push(...misfits("SuccessfulPayment", m.successful_payment, `${where}.successful_payment`));
  if (m.refunded_payment) out.push(...misfits("RefundedPayment", m.refunded_payment, `${where}.refunded_payment`));
  if (m.reply_markup) {
    out.push(...misfits("InlineKeyboardMarkup", m.reply_markup, `${where}.reply_markup`));
    m.reply_markup.inline_keyboard.flat().forEach((b: Obj, i: number) => {
      out.push(...misfits("InlineKeyboardButton", b, `${where}.reply_markup button ${i}`));
      const actions = Object.keys(b).filter((k) => !["text", "icon_custom_emoji_id", "style"].includes(k));
      if (actions.length !== 1) out.push(`${where}.reply_markup button ${i}: ${actions.length} actions`);
    });
  }
  return out;
}

/** An Update: update_id, then its one kind. */
function updateMisfits(u: Obj, where: string): string[] {
  const keys = Object.keys(u);
  const out = keys[0] === "update_id" && keys.length === 2 ? [] : [`${where}: Update keys ${keys.join(",")}`];
  const kind = keys[1]!;
  const body = u[kind] as Obj;
  if (kind === "message" || kind === "channel_post") out.push(...messageMisfits(body, `${where}.${kind}`));
  if (kind === "callback_query") {
    out.push(...misfits("CallbackQuery", body, `${where}.callback_query`));
    out.push(...misfits("User", body.from, `${where}.callback_query.from`));
    if (body.message) out.push(...messageMisfits(body.message, `${where}.callback_query.message`));
  }
  if (kind === "pre_checkout_query") {
    out.push(...misfits("PreCheckoutQuery", body, `${where}.pre_checkout_query`));
    out.push(...misfits("User", body.from, `${where}.pre_checkout_query.from`));
  }
  return out;
}

let stack: TestStack;
beforeAll(async () => {
  stack = await startStack();
});
afterAll(() => stack.close());

const ANN = { id: 501, first_name: "Ann", last_name: "Lee", username: "ann", is_premium: false };

describe("object shapes against the reference's Json classes", () => {
  it("every object of a shop's life conforms: messages, payments, refunds, subscriptions, the ledger, getMe", async () => {
    const bot = await stack.platform.createBot({ first_name: "Shop" });
    const call = botClient(stack.gatewayUrl, bot.token);
    const platform = (method: string, path: string, body?: unknown) =>
      stack.platform.call(method, `/bots/${bot.id}${path}`, body);
    await stack.platform.putChat(bot.id, {
      id: 501,
      type: "private",
      first_name: "Ann",
      last_name: "Lee",
      username: "ann",
    });
    await stack.platform.putChat(bot.id, { id: -100, type: "group", title: "Friends" });
    await stack.platform.putChat(bot.id, { id: -1001, type: "channel", title: "News", username: "news_here" });
    const results: [string, Obj][] = [];
    const ok = async (what: string, r: Promise<{ status: number; body: any }>) => {
      const answer = await r;
      expect({ what, status: answer.status, body: answer.body }).toMatchObject({ what, status: 200 });
      return answer.body.result;
    };

    // The user's side: a command in the group, and a message in the private chat.
    await ok("group message", platform("POST", "/chats/-100/messages", { text: "/start@shop go", from: ANN }));
    await ok("private message", platform("POST", "/chats/501/messages", { text: "hello" }));
    // The bot's side: a formatted message with a keyboard whose button keys come in another order.
    const sent = await ok(
      "sendMessage",
      call("sendMessage", {
        chat_id: 501,
        text: "<b>Pick</b> one <a href='https://example.com'>here</a>",
        parse_mode: "HTML",
        reply_parameters: { message_id: 1 },
        reply_markup: {
          inline_keyboard: [
            [
              { callback_data: "buy", text: "Buy" },
              { url: "https://example.com", text: "Site" },
            ],
          ],
        },
      }),
    );
    results.push(["sendMessage", sent]);
    // A press on the keyboard (before the edit takes the keyboard away).
    await ok(
      "press",
      platform("POST", "/chats/501/callback_queries", { message_id: sent.message_id, data: "buy", from: ANN }),
    );
    results.push([
      "editMessageText",
      await ok("editMessageText", call("editMessageText", { chat_id: 501, message_id: sent.message_id, text: "Pick" })),
    ]);
    const invoice = await ok(
      "sendInvoice",
      call("sendInvoice", {
        chat_id: 501,
        title: "Gold",
        description: "A bag of gold",
        payload: "gold-1",
        currency: "XTR",
        prices: [{ label: "Gold", amount: 5 }],
        reply_parameters: { message_id: sent.message_id },
        protect_content: true,
      }),
    );
    results.push(["sendInvoice", invoice]);
    results.push([
      "sendInvoice to a channel",
      await ok(
        "channel invoice",
        call("sendInvoice", {
          chat_id: "@news_here",
          title: "Gold",
          description: "For readers",
          payload: "gold-news",
          currency: "XTR",
          prices: [{ label: "Gold", amount: 3 }],
          reply_markup: { inline_keyboard: [[{ text: "Pay 3 XTR", pay: true }]] },
        }),
      ),
    ]);
    // A payment, its refund.
    const paying = platform("POST", "/payments", { chat_id: 501, message_id: invoice.message_id, user: ANN });
    const query = await waitForUpdate(stack, bot.id, (u) => u.pre_checkout_query !== undefined);
    await ok(
      "answer",
      call("answerPreCheckoutQuery", { pre_checkout_query_id: query.pre_checkout_query.id, ok: true }),
    );
    const paid = (await paying).body.result;
    await ok(
      "refund",
      call("refundStarPayment", { user_id: 501, telegram_payment_charge_id: paid.telegram_payment_charge_id }),
    );
    // A subscription through a link.
    const link = await ok(
      "link",
      call("createInvoiceLink", {
        title: "Club",
        description: "Monthly",
        payload: "club",
        currency: "XTR",
        prices: [{ label: "Month", amount: 7 }],
        subscription_period: 2592000,
      }),
    );
    const subscribing = platform("POST", "/invoice_links/pay", { link, user: { id: 777, first_name: "Bo" } });
    const subQuery = await waitForUpdate(stack, bot.id, (u) => u.pre_checkout_query?.from.id === 777);
    await ok(
      "answer",
      call("answerPreCheckoutQuery", { pre_checkout_query_id: subQuery.pre_checkout_query.id, ok: true }),
    );
    expect((await subscribing).status).toBe(200);

    const problems: string[] = [];
    for (const [what, message] of results) problems.push(...messageMisfits(message, what));
    const updates = (await ok("getUpdates", call("getUpdates", { offset: 0 }))) as Obj[];
    expect(new Set(updates.map((u) => Object.keys(u)[1]))).toEqual(
      new Set(["message", "callback_query", "pre_checkout_query"]),
    );
    updates.forEach((u, i) => problems.push(...updateMisfits(u, `update ${i}`)));
    const payments = updates.map((u) => u.message).filter((m) => m?.successful_payment);
    expect(payments.map((m) => m.successful_payment.is_recurring ?? false)).toEqual([false, true]);
    expect(updates.some((u) => u.message?.refunded_payment)).toBe(true);

    const ledger = await ok("getStarTransactions", call("getStarTransactions", {}));
    problems.push(...misfits("StarTransactions", ledger, "getStarTransactions"));
    expect(ledger.transactions).toHaveLength(3);
    ledger.transactions.forEach((t: Obj, i: number) => {
      problems.push(...misfits("StarTransaction", t, `transaction ${i}`));
      const partner = t.source ?? t.receiver;
      problems.push(...misfits("TransactionPartnerUser", partner, `transaction ${i} partner`));
      problems.push(...misfits("User", partner.user, `transaction ${i} partner.user`));
    });
    problems.push(...misfits("StarAmount", await ok("balance", call("getMyStarBalance")), "getMyStarBalance"));
    problems.push(...misfits("BotUser", await ok("getMe", call("getMe")), "getMe"));
    expect(problems).toEqual([]);

    // Values the shapes alone do not show: fields written only when set, the rewritten button.
    const groupMessage = updates.find((u) => u.message?.chat.type === "group")!.message;
    expect(groupMessage.from).toEqual({ id: 501, is_bot: false, first_name: "Ann", last_name: "Lee", username: "ann" });
    expect(groupMessage.chat).toMatchObject({ all_members_are_administrators: false });
    expect(sent.reply_markup.inline_keyboard[0]).toEqual([
      { text: "Buy", callback_data: "buy" },
      { text: "Site", url: "https://example.com" },
    ]);
    expect(Object.keys(sent.reply_markup.inline_keyboard[0][0])).toEqual(["text", "callback_data"]);
    const press = updates.find((u) => u.callback_query)!.callback_query;
    expect(press.data).toBe("buy");
    // The pressed message shows the message it replied to (need_reply, line 4896); a replied-to
    // message never carries its own reply.
    expect(press.message.reply_to_message).toMatchObject({ message_id: 1, text: "hello" });
    expect(sent.reply_to_message).toMatchObject({ message_id: 1, text: "hello" });
    expect(invoice.reply_to_message.message_id).toBe(sent.message_id);
    expect(invoice.reply_to_message.reply_to_message).toBeUndefined();
  });

  it("getWebhookInfo conforms, with allowed_updates in the reference's UpdateType order", async () => {
    const bot = await stack.platform.createBot();
    const call = botClient(stack.gatewayUrl, bot.token);
    await call("setWebhook", {
      url: "http://127.0.0.1:9/hook",
      allowed_updates: ["callback_query", "message_reaction", "business_message", "message", "custom_event"],
    });
    const info = (await call("getWebhookInfo")).body.result;
    expect(misfits("WebhookInfo", info, "getWebhookInfo")).toEqual([]);
    // UpdateType order (Client.h at 01a3679, line 1396); custom_event counts but is never listed.
    expect(info.allowed_updates).toEqual(["message", "callback_query", "message_reaction", "business_message"]);
  });
});
