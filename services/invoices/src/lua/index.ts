import { luaSlot, RUNTIME_LUA, scriptsIn, type LuaValue } from "@starpost/runtime";
import { logSlots, ticketOf, UPDATE_LOG_LUA } from "@starpost/update-log";

const { one, rest } = luaSlot;

const script = scriptsIn(import.meta.url, [UPDATE_LOG_LUA, RUNTIME_LUA]);

/** The keys of a bot's money, in the order the money scripts take them (see moneyKeys). */
const moneySlots = () => ({
  charges: one(),
  ledger: one(),
  balance: one(),
  messageSeq: one(),
  messages: one(),
  userStars: one(),
});

/**
 * The invoices service's Lua scripts (only this service moves money), each declared once: KEYS
 * and ARGV by name in the order of its .lua header (a test checks them), its reply decoded.
 */
export const invoiceScripts = {
  sendInvoice: script("send-invoice.lua", {
    keys: { chats: one(), chatUsernames: one(), messageSeq: one(), messages: one(), invoices: one() },
    args: {
      chatId: one(),
      message: one(),
      from: one(),
      senderChat: one(),
      reply: one(),
      record: one(),
      replyTo: one<number | "">(),
      replyChat: one(),
      withoutReply: one<"0" | "1">(),
      wakeChannel: one(),
      botId: one(),
    },
    reply: ([status, chatId, message]: [string, string?, string?]) =>
      status === "ok"
        ? { status: "ok" as const, chatId: chatId!, message: message! }
        : { status: status as "chat_not_found" | "chat_type" | "reply_not_found" },
  }),
  recordPreCheckout: script("record-pre-checkout.lua", {
    keys: {
      log: logSlots.keys(),
      query: one(),
      users: one(),
      idempotency: one(),
      stars: one(),
      subscribers: one(),
      bot: one(),
      chats: one(),
      invoices: one(),
    },
    args: {
      log: logSlots.args(),
      kind: logSlots.kind(),
      queue: one(),
      update: one(),
      lifetime: one<number>(),
      answerTimeout: one<number>(),
      userId: one(),
      user: one(),
      idempotent: one<"0" | "1">(),
      queryId: one(),
      fingerprint: one(),
      amount: one(),
      subscriber: one(),
      chatId: one(),
      invoiceField: one(),
      fields: rest<LuaValue>(),
    },
    reply: ([outcome, a, b]: [string, number | string, number | string]) =>
      outcome === "repeat"
        ? { outcome: "repeat" as const, queryId: String(a), sameRequest: b === 1 }
        : outcome === "refused"
          ? { outcome: a as "stars_not_enough" | "already_subscribed" }
          : outcome === "missing"
            ? {
                outcome: "missing" as const,
                what: a as "bot_not_found" | "chat_not_found" | "invoice_message_not_found",
              }
            : /** `appended` is false when the update was dropped (allowed_updates, the cap). */
              { outcome: "new" as const, drain: ticketOf(a), appended: typeof b === "number" },
  }),
  answerPreCheckout: script("answer-pre-checkout.lua", {
    keys: {
      log: logSlots.keys(),
      query: one(),
      ...moneySlots(),
      subscriptions: one(),
      subscribers: one(),
      due: one(),
      clock: one(),
      invoices: one(),
    },
    args: {
      log: logSlots.args(),
      kind: logSlots.kind(),
      ok: one<"0" | "1">(),
      errorMessage: one(),
      message: one(),
      payment: one(),
      subscribed: one(),
      transaction: one(),
      answered: one(),
      announce: one(),
    },
    /**
     * `drain`: a paid update opened a webhook bot's drain epoch (its job is due); `detail`: how it
     * ended, as the answer channel's message tells it ("paid <charge id>", "failed <why>").
     */
    reply: ([answer, webhookOrWhy, chargeId]: [string, (number | string)?, string?]) => ({
      answer: answer as "invalid" | "declined" | "failed" | "paid",
      drain: answer === "paid" ? ticketOf(webhookOrWhy) : undefined,
      detail: answer === "paid" ? `paid ${chargeId}` : answer === "failed" ? `failed ${webhookOrWhy}` : undefined,
    }),
  }),
  answerCallback: script("answer-callback.lua", {
    keys: { answer: one(), openQueries: one() },
    args: { json: one(), lifetime: one<number>(), answered: one(), announce: one(), id: one() },
    /** "kept": a live press, its answer kept; "open": a live query pushed as an update; "none": no live query. */
    reply: (r: number) => (r === 1 ? "kept" : r === 2 ? "open" : "none"),
  }),
  settlePreCheckout: script("settle-pre-checkout.lua", {
    keys: { query: one() },
    args: {},
    reply: ([state, chargeId, errorMessage]: [string, string, string]) => ({ state, chargeId, errorMessage }),
  }),
  refundStarPayment: script("refund-star-payment.lua", {
    keys: { log: logSlots.keys(), users: one(), ...moneySlots(), clock: one(), invoices: one() },
    args: {
      log: logSlots.args(),
      kind: logSlots.kind(),
      chargeId: one(),
      userId: one(),
      message: one(),
      transaction: one(),
    },
    reply: ([status, ticket]: [string, (number | string)?]) => ({
      status: status as "user_not_found" | "not_found" | "already_refunded" | "refunded",
      drain: ticketOf(ticket),
    }),
  }),
  renewSubscription: script("renew-subscription.lua", {
    keys: {
      log: logSlots.keys(),
      ...moneySlots(),
      subscriptions: one(),
      due: one(),
      clock: one(),
      subscribers: one(),
      invoices: one(),
    },
    args: {
      log: logSlots.args(),
      kind: logSlots.kind(),
      chargeId: one(),
      message: one(),
      payment: one(),
      transaction: one(),
      refunded: one(),
    },
    reply: ([status, detail]: [string, (number | string)?]) =>
      status === "none"
        ? { status: "none" as const, clock: Number(detail) }
        : status === "ended"
          ? { status: "ended" as const, firstChargeId: String(detail) }
          : { status: "renewed" as const, drain: ticketOf(detail) },
  }),
  editSubscription: script("edit-subscription.lua", {
    keys: { users: one(), subscriptions: one() },
    args: { chargeId: one(), userId: one(), cancel: one<"0" | "1">() },
    reply: (status: string) => status as "user_not_found" | "not_found" | "expired" | "ok",
  }),
  replaceMessage: script("replace-message.lua", {
    keys: { messages: one() },
    args: { field: one(), read: one(), next: one() },
    /** false when the message changed or is gone meanwhile. */
    reply: (n: number) => n === 1,
  }),
};
