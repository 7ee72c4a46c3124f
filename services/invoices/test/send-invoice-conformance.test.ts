import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startStack, type TestStack } from "@starpost/testkit";
import { callIn, ENCODINGS } from "./helpers.ts";

let stack: TestStack;
let bot: { id: number; token: string; username: string; first_name: string };

const PRIVATE = 4101;
const CHANNEL = -1004102;
const GROUP = -4103;
const SUPERGROUP = -1004104;

beforeAll(async () => {
  stack = await startStack();
  bot = await stack.platform.createBot({ first_name: "Shop" });
  for (const chat of [
    { id: PRIVATE, type: "private", first_name: "Ann", username: "ann_buyer" },
    { id: CHANNEL, type: "channel", title: "Star Channel", username: "star_channel" },
    { id: GROUP, type: "group", title: "A group" },
    { id: SUPERGROUP, type: "supergroup", title: "A supergroup", username: "super_group" },
  ]) {
    expect((await stack.platform.putChat(bot.id, chat)).status).toBe(200);
  }
});
afterAll(() => stack.close());

const valid = {
  chat_id: PRIVATE,
  title: "Gold",
  description: "A bag of gold",
  payload: "order-1",
  currency: "XTR",
  prices: [{ label: "Gold", amount: 100 }],
};

type Params = Record<string, unknown>;
const without = (name: string): Params => {
  const p: Params = { ...valid };
  delete p[name];
  return p;
};
const pay = [[{ text: "Pay", pay: true }]];

const bad = (text: string) => [400, `Bad Request: ${text}`] as const;

/** [case, parameters, status, description] — every case is sent in all four encodings. */
const CASES: [string, Params, number, string][] = [
  // Required strings, in the official order.
  ["no title", without("title"), ...bad('parameter "title" is required')],
  ["empty title", { ...valid, title: "" }, ...bad('parameter "title" is required')],
  ["no description", without("description"), ...bad('parameter "description" is required')],
  ["no payload", without("payload"), ...bad('parameter "payload" is required')],
  ["nothing at all reports title first", {}, ...bad('parameter "title" is required')],
  ["no currency", without("currency"), ...bad('parameter "currency" is required')],
  // prices
  // get_required_string_arg (Client.cpp at 01a3679, line 12367).
  ["no prices", without("prices"), ...bad('parameter "prices" is required')],
  ["prices not JSON", { ...valid, prices: "[{label" }, ...bad("can't parse prices JSON object")],
  ["prices an object", { ...valid, prices: { label: "x", amount: 1 } }, ...bad("expected an Array of labeled prices")],
  [
    "price not an object",
    { ...valid, prices: [5] },
    ...bad("can't parse labeled price: LabeledPrice must be an Object"),
  ],
  [
    "price without label",
    { ...valid, prices: [{ amount: 5 }] },
    ...bad("can't parse labeled price: Can't find field \"label\""),
  ],
  [
    "price with a Boolean as label",
    { ...valid, prices: [{ label: true, amount: 5 }] },
    ...bad('can\'t parse labeled price: Field "label" must be of type String'),
  ],
  [
    "price with an object as amount",
    { ...valid, prices: [{ label: "x", amount: { n: 5 } }] },
    ...bad('can\'t parse labeled price: Field "amount" must be a Number'),
  ],
  // td reads a number's text with to_integer_safe<int64>: only an integer's exact decimal form.
  ...["5.0", "1e3", "+5", "05"].map((amount): [string, Params, number, string] => [
    `price with the amount ${amount}`,
    { ...valid, prices: `[{"label":"x","amount":${amount}}]` },
    ...bad('can\'t parse labeled price: Field "amount" must be a valid Number'),
  ]),
  [
    "price with empty label",
    { ...valid, prices: [{ label: "", amount: 5 }] },
    ...bad("can't parse labeled price: LabeledPrice label must be non-empty"),
  ],
  [
    "price without amount",
    { ...valid, prices: [{ label: "x" }] },
    ...bad("can't parse labeled price: Can't find field \"amount\""),
  ],
  [
    "price with a fractional amount",
    { ...valid, prices: [{ label: "x", amount: 1.5 }] },
    ...bad('can\'t parse labeled price: Field "amount" must be a valid Number'),
  ],
  ["0 prices", { ...valid, prices: [] }, ...bad("there must be at least one price")],
  [
    "prices are checked before the limits",
    { ...valid, title: "x".repeat(40), prices: [] },
    ...bad("there must be at least one price"),
  ],
  // Limits
  ["title of 33 characters", { ...valid, title: "t".repeat(33) }, ...bad("INVOICE_TITLE_INVALID")],
  ["title of 33 multi-byte characters", { ...valid, title: "€".repeat(33) }, ...bad("INVOICE_TITLE_INVALID")],
  ["description of 256 characters", { ...valid, description: "d".repeat(256) }, ...bad("INVOICE_DESCRIPTION_INVALID")],
  ["payload of 129 bytes in 43 characters", { ...valid, payload: "€".repeat(43) }, ...bad("INVOICE_PAYLOAD_INVALID")],
  ["payload of 129 ASCII bytes", { ...valid, payload: "p".repeat(129) }, ...bad("INVOICE_PAYLOAD_INVALID")],
  [
    "limits come before the star rules",
    { ...valid, currency: "USD", title: "t".repeat(33) },
    ...bad("INVOICE_TITLE_INVALID"),
  ],
  // Tips
  [
    "5 suggested tips",
    { ...valid, max_tip_amount: 100, suggested_tip_amounts: [1, 2, 3, 4, 5] },
    ...bad("there can be at most 4 suggested tip amounts"),
  ],
  [
    "a zero suggested tip",
    { ...valid, max_tip_amount: 100, suggested_tip_amounts: [0, 5] },
    ...bad("suggested tip amount must be positive"),
  ],
  [
    "decreasing suggested tips",
    { ...valid, max_tip_amount: 100, suggested_tip_amounts: [10, 5] },
    ...bad("suggested tip amounts must be increasing"),
  ],
  [
    "a suggested tip above max_tip_amount",
    { ...valid, max_tip_amount: 10, suggested_tip_amounts: [5, 20] },
    ...bad("suggested tip amount can't be bigger than max_tip_amount"),
  ],
  [
    "suggested tips not JSON",
    { ...valid, suggested_tip_amounts: "[1," },
    ...bad("can't parse suggested_tip_amounts JSON object"),
  ],
  // TDLib's checks (InputInvoice.cpp, LabeledPricePart.cpp), after the limits.
  [
    "a negative max_tip_amount",
    { ...valid, max_tip_amount: -1 },
    ...bad("invalid max_tip_amount of the currency specified"),
  ],
  [
    "a max_tip_amount above TDLib's bound",
    { ...valid, max_tip_amount: 1_000_000_000_000 },
    ...bad("invalid max_tip_amount of the currency specified"),
  ],
  ["a zero amount", { ...valid, prices: [{ label: "a", amount: 0 }] }, ...bad("total price must be positive")],
  [
    "an amount above TDLib's bound",
    { ...valid, prices: [{ label: "a", amount: 1_000_000_000_000 }] },
    ...bad("too big amount of the currency specified"),
  ],
  [
    "a total above TDLib's bound",
    {
      ...valid,
      prices: [
        { label: "a", amount: 999_999_999_999 },
        { label: "b", amount: 1 },
      ],
    },
    ...bad("total price is too big"),
  ],
  [
    "the price checks come before the tips",
    { ...valid, prices: [{ label: "a", amount: 0 }], max_tip_amount: -1 },
    ...bad("total price must be positive"),
  ],
  // to_integer_safe<int64> (Client.cpp at 01a3679, line 11994): only an integer's exact decimal form.
  ...["12abc", "012", "+5", "-0", "1.5", " 5", "9223372036854775808"].map((tip): [string, Params, number, string] => [
    `max_tip_amount "${tip}"`,
    { ...valid, max_tip_amount: tip },
    ...bad('can\'t parse "max_tip_amount" as Number'),
  ]),
  [
    "a max_tip_amount that is no number, after a price that is none: the prices first",
    { ...valid, prices: "[", max_tip_amount: "x" },
    ...bad("can't parse prices JSON object"),
  ],
  [
    "suggested tips an object",
    { ...valid, max_tip_amount: 50, suggested_tip_amounts: { a: 1 } },
    ...bad("expected an Array of suggested tip amounts"),
  ],
  // get_suggested_tip_amounts (Client.cpp at 01a3679, line 9885).
  [
    "a suggested tip not a number",
    { ...valid, max_tip_amount: 50, suggested_tip_amounts: ["ten"] },
    ...bad("can't parse suggested tip amount as Number"),
  ],
  ...["1.0", "1e3", "+5", '"05"'].map((tip): [string, Params, number, string] => [
    `a suggested tip ${tip}`,
    { ...valid, max_tip_amount: 50, suggested_tip_amounts: `[${tip}]` },
    ...bad("can't parse suggested tip amount as Number"),
  ]),
  [
    "a suggested tip of neither type",
    { ...valid, max_tip_amount: 50, suggested_tip_amounts: [true] },
    ...bad("suggested tip amount must be of type Number or String"),
  ],
  [
    "suggested tips null",
    { ...valid, suggested_tip_amounts: "null" },
    ...bad("expected an Array of suggested tip amounts"),
  ],
  [
    "the tips are parsed before the limits are checked",
    { ...valid, title: "t".repeat(33), suggested_tip_amounts: "[1," },
    ...bad("can't parse suggested_tip_amounts JSON object"),
  ],
  [
    "each tip is checked against max_tip_amount before their count",
    { ...valid, max_tip_amount: 3, suggested_tip_amounts: [1, 2, 3, 4, 5] },
    ...bad("suggested tip amount can't be bigger than max_tip_amount"),
  ],
  // Star rules
  ["USD", { ...valid, currency: "USD" }, ...bad("PAYMENT_PROVIDER_INVALID")],
  ["lower-case xtr", { ...valid, currency: "xtr" }, ...bad("PAYMENT_PROVIDER_INVALID")],
  ["a provider token", { ...valid, provider_token: "284685063:TEST:abc" }, ...bad("PAYMENT_PROVIDER_INVALID")],
  [
    "USD with valid tips",
    { ...valid, currency: "USD", max_tip_amount: 50, suggested_tip_amounts: [10, 20] },
    ...bad("PAYMENT_PROVIDER_INVALID"),
  ],
  ["tips with XTR", { ...valid, max_tip_amount: 50, suggested_tip_amounts: [10, 20] }, ...bad("STARS_INVOICE_INVALID")],
  ["max_tip_amount with XTR", { ...valid, max_tip_amount: 50 }, ...bad("STARS_INVOICE_INVALID")],
  [
    "2 prices with XTR",
    {
      ...valid,
      prices: [
        { label: "a", amount: 1 },
        { label: "b", amount: 2 },
      ],
    },
    ...bad("STARS_INVOICE_INVALID"),
  ],
  [
    "a negative part with XTR (TDLib checks only the total)",
    {
      ...valid,
      prices: [
        { label: "a", amount: 5 },
        { label: "b", amount: -1 },
      ],
    },
    ...bad("STARS_INVOICE_INVALID"),
  ],
  ["star rules come before the chat", { ...valid, currency: "USD", chat_id: 999 }, ...bad("PAYMENT_PROVIDER_INVALID")],
  // reply_markup
  [
    "a first button that is not Pay",
    {
      ...valid,
      reply_markup: {
        inline_keyboard: [
          [
            { text: "Visit", url: "https://example.com" },
            { text: "Pay", pay: true },
          ],
        ],
      },
    },
    ...bad("the first button of the first row must be a Pay button"),
  ],
  [
    "reply_markup not JSON",
    { ...valid, reply_markup: "{inline" },
    ...bad("can't parse reply keyboard markup JSON object"),
  ],
  [
    "inline_keyboard not an array of rows",
    { ...valid, reply_markup: { inline_keyboard: [{ text: "Pay", pay: true }] } },
    ...bad('field "inline_keyboard" of the InlineKeyboardMarkup must be an Array of Arrays'),
  ],
  // get_reply_markup and get_inline_keyboard_button (Client.cpp at 01a3679, lines 9697 and 9574).
  ["reply_markup not an object", { ...valid, reply_markup: "[]" }, ...bad("object expected as reply markup")],
  [
    "inline_keyboard not an array",
    { ...valid, reply_markup: { inline_keyboard: 5 } },
    ...bad('field "inline_keyboard" must be of type Array'),
  ],
  [
    "a button without text",
    { ...valid, reply_markup: { inline_keyboard: [[{ pay: true }]] } },
    ...bad("can't parse inline keyboard button: Can't find field \"text\""),
  ],
  [
    "a text button",
    { ...valid, reply_markup: { inline_keyboard: [[{ text: "Hi" }]] } },
    ...bad("can't parse inline keyboard button: Text buttons are unallowed in the inline keyboard"),
  ],
  [
    "a button of an unknown style",
    { ...valid, reply_markup: { inline_keyboard: [[{ text: "Pay", pay: true, style: "loud" }]] } },
    ...bad("can't parse inline keyboard button: invalid button style specified"),
  ],
  [
    "a Boolean flag that is not one",
    { ...valid, reply_markup: { inline_keyboard: [[{ text: "Pay", pay: true }]], selective: "yes" } },
    ...bad('field "selective" must be of type Boolean'),
  ],
  [
    "the markup is read before the limits",
    { ...valid, title: "t".repeat(33), reply_markup: "{" },
    ...bad("can't parse reply keyboard markup JSON object"),
  ],
  [
    "the reply before the markup",
    { ...valid, reply_markup: "{", reply_parameters: "[]" },
    ...bad("object expected as reply parameters"),
  ],
  // Sending options starpost does not act on, read for their errors (Client.cpp at 01a3679).
  [
    "suggested_post_parameters not JSON",
    { ...valid, suggested_post_parameters: "{" },
    ...bad("can't parse suggested post parameters JSON object"),
  ],
  [
    "suggested_post_parameters with a price in another currency",
    { ...valid, suggested_post_parameters: { price: { currency: "USD", amount: 5 } } },
    ...bad("invalid suggested post price currency specified"),
  ],
  [
    "a business connection with an @username",
    { ...valid, chat_id: "@channel_shop", business_connection_id: "abc" },
    ...bad("chat identifier must be a valid Integer"),
  ],
  [
    "a business connection with a chat id that is no exact integer",
    { ...valid, chat_id: `${PRIVATE}abc`, business_connection_id: "abc" },
    ...bad("chat identifier must be a valid Integer"),
  ],
  [
    "a business connection starpost does not have",
    { ...valid, business_connection_id: "abc" },
    ...bad("business connection not found"),
  ],
  [
    "reply_parameters without message_id",
    { ...valid, reply_parameters: { chat_id: 5 } },
    ...bad('can\'t find field "message_id"'),
  ],
  [
    "reply_parameters with a message_id that is no number",
    { ...valid, reply_parameters: { message_id: "007" } },
    ...bad('field "message_id" must be a valid Number'),
  ],
  // The chat
  ["no chat_id", without("chat_id"), ...bad("chat_id is empty")],
  ["an unknown chat id", { ...valid, chat_id: 987654 }, ...bad("chat not found")],
  ["an unknown @username", { ...valid, chat_id: "@nobody_here" }, ...bad("chat not found")],
  // td::to_integer<int64> of " 4101" is 0 (Client.cpp at 01a3679, line 8210): no chat.
  ["a chat id after a space", { ...valid, chat_id: ` ${PRIVATE}` }, ...bad("chat not found")],
  ["a group", { ...valid, chat_id: GROUP }, ...bad("star invoices can be sent only to private chats and channels")],
  [
    "a supergroup by @username",
    { ...valid, chat_id: "@super_group" },
    ...bad("star invoices can be sent only to private chats and channels"),
  ],
  // reply_parameters
  [
    "a reply to a missing message",
    { ...valid, reply_parameters: { message_id: 99999 } },
    ...bad("message to be replied not found"),
  ],
  [
    "reply_parameters not JSON",
    { ...valid, reply_parameters: "{" },
    ...bad("can't parse reply parameters JSON object"),
  ],
];

describe("sendInvoice conformance", () => {
  for (const encoding of ENCODINGS) {
    it(`answers every invalid call with the exact status and description (${encoding})`, async () => {
      for (const [name, params, status, description] of CASES) {
        const r = await callIn(stack, bot.token, "sendInvoice", params, encoding);
        expect({ name, status: r.status, body: r.body }).toEqual({
          name,
          status,
          body: { ok: false, error_code: status, description },
        });
      }
    });
  }

  it("returns the Message with the reference's keys in order, in every encoding", async () => {
    for (const encoding of ENCODINGS) {
      const r = await callIn(stack, bot.token, "sendInvoice", valid, encoding);
      expect(r.status).toBe(200);
      const m = r.body.result;
      expect(Object.keys(m)).toEqual(["message_id", "from", "chat", "date", "invoice"]);
      expect(m.from).toEqual({ id: bot.id, is_bot: true, first_name: "Shop", username: bot.username });
      expect(m.chat).toEqual({ id: PRIVATE, first_name: "Ann", username: "ann_buyer", type: "private" });
      expect(Math.abs(m.date - Date.now() / 1000)).toBeLessThan(5);
      expect(m.invoice).toEqual({
        title: "Gold",
        description: "A bag of gold",
        start_parameter: "",
        currency: "XTR",
        total_amount: 100,
      });
      expect(Object.keys(m.invoice)).toEqual(["title", "description", "start_parameter", "currency", "total_amount"]);
    }
  });

  it("reads chat_id as the reference's check_chat does: leading zeros and what follows the digits are ignored", async () => {
    for (const encoding of ENCODINGS)
      for (const chatId of [`0${PRIVATE}`, `${PRIVATE}abc`, `${PRIVATE}.5`, `${CHANNEL}x`]) {
        const r = await callIn(stack, bot.token, "sendInvoice", { ...valid, chat_id: chatId }, encoding);
        expect({ chatId, status: r.status, chat: r.body.result?.chat.id }).toEqual({
          chatId,
          status: 200,
          chat: chatId.startsWith("-") ? CHANNEL : PRIVATE,
        });
      }
  });

  it("accepts the limits exactly: 32 characters, 255 characters, 128 bytes", async () => {
    for (const encoding of ENCODINGS) {
      const p = { ...valid, title: "€".repeat(32), description: "d".repeat(255), payload: "€".repeat(42) + "ab" };
      const r = await callIn(stack, bot.token, "sendInvoice", p, encoding);
      expect(r.status).toBe(200);
      expect(r.body.result.invoice.title).toBe("€".repeat(32));
    }
  });

  it("sends to a channel by @username with sender_chat, Pay markup and protected content", async () => {
    for (const encoding of ENCODINGS) {
      const r = await callIn(
        stack,
        bot.token,
        "sendInvoice",
        {
          ...valid,
          chat_id: "@Star_Channel",
          reply_markup: { inline_keyboard: [[{ text: "Pay ⭐100", pay: true }]] },
          protect_content: true,
          start_parameter: "gold",
        },
        encoding,
      );
      expect(r.status).toBe(200);
      const m = r.body.result;
      expect(Object.keys(m)).toEqual([
        "message_id",
        "sender_chat",
        "chat",
        "date",
        "invoice",
        "reply_markup",
        "has_protected_content",
      ]);
      expect(m.sender_chat).toEqual({ id: CHANNEL, title: "Star Channel", username: "star_channel", type: "channel" });
      expect(m.chat).toEqual(m.sender_chat);
      expect(m.invoice.start_parameter).toBe("gold");
      expect(m.reply_markup).toEqual({ inline_keyboard: [[{ text: "Pay ⭐100", pay: true }]] });
      expect(m.has_protected_content).toBe(true);
    }
  });

  it("treats an empty keyboard as the default Pay button and protect_content=false as absent", async () => {
    for (const markup of [{}, { inline_keyboard: [] }, { inline_keyboard: [[]] }]) {
      const r = await callIn(
        stack,
        bot.token,
        "sendInvoice",
        { ...valid, reply_markup: markup, protect_content: false },
        "json",
      );
      expect(Object.keys(r.body.result)).toEqual(["message_id", "from", "chat", "date", "invoice"]);
    }
  });

  it("takes prices, reply_markup and reply_parameters in a JSON body both nested and as JSON strings", async () => {
    const nested = await callIn(
      stack,
      bot.token,
      "sendInvoice",
      { ...valid, reply_markup: { inline_keyboard: pay } },
      "json",
    );
    const strings = await callIn(
      stack,
      bot.token,
      "sendInvoice",
      {
        ...valid,
        prices: JSON.stringify(valid.prices),
        reply_markup: JSON.stringify({ inline_keyboard: pay }),
        reply_parameters: JSON.stringify({ message_id: nested.body.result.message_id }),
      },
      "json",
    );
    expect(strings.status).toBe(200);
    expect(strings.body.result.reply_markup).toEqual(nested.body.result.reply_markup);
    expect(strings.body.result.reply_to_message).toEqual(nested.body.result);
  });

  it("replies to an existing invoice, and sends without the reply when allowed", async () => {
    const first = (await callIn(stack, bot.token, "sendInvoice", valid, "json")).body.result;
    const reply = await callIn(
      stack,
      bot.token,
      "sendInvoice",
      { ...valid, reply_parameters: { message_id: first.message_id } },
      "urlencoded",
    );
    expect(Object.keys(reply.body.result)).toEqual([
      "message_id",
      "from",
      "chat",
      "date",
      "reply_to_message",
      "invoice",
    ]);
    expect(reply.body.result.reply_to_message).toEqual(first);
    // A reply to a reply carries the replied message without its own reply_to_message.
    const second = await callIn(
      stack,
      bot.token,
      "sendInvoice",
      { ...valid, reply_parameters: { message_id: reply.body.result.message_id } },
      "json",
    );
    expect(second.body.result.reply_to_message.reply_to_message).toBeUndefined();
    const allowed = await callIn(
      stack,
      bot.token,
      "sendInvoice",
      { ...valid, reply_parameters: { message_id: 99999, allow_sending_without_reply: true } },
      "multipart",
    );
    expect(allowed.status).toBe(200);
    expect(allowed.body.result.reply_to_message).toBeUndefined();
    // A message of another chat cannot be replied to.
    const other = await callIn(
      stack,
      bot.token,
      "sendInvoice",
      { ...valid, reply_parameters: { message_id: first.message_id, chat_id: CHANNEL } },
      "json",
    );
    expect(other.body).toEqual({
      ok: false,
      error_code: 400,
      description: "Bad Request: message to be replied not found",
    });
  });

  it("accepts all 31 parameters; the ignored ones change nothing", async () => {
    const all = {
      ...valid,
      message_thread_id: 5,
      direct_messages_topic_id: 7,
      provider_token: "",
      max_tip_amount: 0,
      suggested_tip_amounts: [],
      start_parameter: "",
      provider_data: '{"a":1}',
      photo_url: "https://example.com/gold.png",
      photo_size: 1000,
      photo_width: 100,
      photo_height: 100,
      need_name: true,
      need_phone_number: true,
      need_email: true,
      need_shipping_address: true,
      send_phone_number_to_provider: true,
      send_email_to_provider: true,
      is_flexible: true,
      disable_notification: true,
      protect_content: false,
      allow_paid_broadcast: true,
      message_effect_id: "5104841245755180586",
      suggested_post_parameters: { price: { currency: "XTR", amount: 5 } },
      reply_parameters: undefined,
      reply_markup: { inline_keyboard: [] },
    };
    expect(Object.keys(all)).toHaveLength(31);
    for (const encoding of ENCODINGS) {
      const plain = (await callIn(stack, bot.token, "sendInvoice", valid, encoding)).body.result;
      const full = await callIn(stack, bot.token, "sendInvoice", all, encoding);
      expect(full.status).toBe(200);
      const strip = (m: any) => ({ ...m, message_id: 0, date: 0 });
      expect(strip(full.body.result)).toEqual(strip(plain));
      expect(full.body.result.message_id).toBe(plain.message_id + 1);
    }
  });

  it("numbers message_id per chat without gaps or duplicates under 100 concurrent sends", async () => {
    const b = await stack.platform.createBot();
    await stack.platform.putChat(b.id, { id: 77, type: "private", first_name: "Bo" });
    await stack.platform.putChat(b.id, { id: -10077, type: "channel", title: "C" });
    const sends = Array.from({ length: 100 }, (_, i) =>
      callIn(stack, b.token, "sendInvoice", { ...valid, chat_id: i % 2 ? 77 : -10077 }, ENCODINGS[i % 4]!),
    );
    const results = await Promise.all(sends);
    for (const chat of [77, -10077]) {
      const ids = results
        .filter((r) => r.body.result.chat.id === chat)
        .map((r) => r.body.result.message_id)
        .sort((a, z) => a - z);
      expect(ids).toEqual(Array.from({ length: 50 }, (_, i) => i + 1));
    }
  });
});

describe("createInvoiceLink", () => {
  const product = {
    title: "Gold",
    description: "A bag of gold",
    payload: "link-1",
    currency: "XTR",
    prices: [{ label: "Gold", amount: 10 }],
  };
  const LINK_CASES: [string, Params, number, string][] = [
    ["no title", { ...product, title: undefined }, ...bad('parameter "title" is required')],
    ["0 prices", { ...product, prices: [] }, ...bad("there must be at least one price")],
    ["payload of 129 bytes", { ...product, payload: "€".repeat(43) }, ...bad("INVOICE_PAYLOAD_INVALID")],
    ["USD", { ...product, currency: "USD" }, ...bad("PAYMENT_PROVIDER_INVALID")],
    [
      "USD with a subscription",
      { ...product, currency: "USD", subscription_period: 2592000 },
      ...bad("PAYMENT_PROVIDER_INVALID"),
    ],
    [
      "2 prices",
      {
        ...product,
        prices: [
          { label: "a", amount: 1 },
          { label: "b", amount: 1 },
        ],
      },
      ...bad("STARS_INVOICE_INVALID"),
    ],
    ["a week-long subscription", { ...product, subscription_period: 604800 }, ...bad("SUBSCRIPTION_PERIOD_INVALID")],
    ["a business connection", { ...product, business_connection_id: "b1" }, ...bad("business connection not found")],
  ];

  for (const encoding of ENCODINGS) {
    it(`applies the product checks and the subscription rule (${encoding})`, async () => {
      for (const [name, params, status, description] of LINK_CASES) {
        const r = await callIn(stack, bot.token, "createInvoiceLink", params, encoding);
        expect({ name, status: r.status, body: r.body }).toEqual({
          name,
          status,
          body: { ok: false, error_code: status, description },
        });
      }
      // A negative period is 0 (get_integer_arg(…, 0, 0), line 12034): a plain link.
      for (const params of [
        product,
        { ...product, subscription_period: 2592000 },
        { ...product, subscription_period: -5 },
      ]) {
        const r = await callIn(stack, bot.token, "createInvoiceLink", params, encoding);
        expect(r.status).toBe(200);
        expect(r.body.result).toMatch(/^https:\/\/t\.me\/\$[A-Za-z0-9_-]+$/);
      }
    });
  }
});
