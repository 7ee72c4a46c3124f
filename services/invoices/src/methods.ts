import { ok } from "@starpost/shared";
import { rowsOf, type MethodTable } from "@starpost/http";
import type { InvoiceDomain } from "./domain/deps.ts";
import { createInvoiceLink } from "./domain/invoice-link.ts";
import { getMyStarBalance, getStarTransactions } from "./domain/ledger.ts";
import { answerPreCheckoutQuery } from "./domain/payments.ts";
import { refundStarPayment } from "./domain/refunds.ts";
import { sendInvoice } from "./domain/send-invoice.ts";
import { editUserStarSubscription } from "./domain/subscriptions.ts";
import { answerCallbackQuery } from "./messages/callback-answers.ts";
import { deleteMessage, editMessageReplyMarkup, editMessageText } from "./messages/edit-message.ts";
import { sendMessage } from "./messages/send-message.ts";
import { answer } from "./outcomes.ts";
import { AnswerCallbackQueryParams } from "./params/callbacks.ts";
import {
  AnswerPreCheckoutQueryParams,
  CreateInvoiceLinkParams,
  EditUserStarSubscriptionParams,
  GetAvailableGiftsParams,
  GetMyStarBalanceParams,
  GetStarTransactionsParams,
  RefundStarPaymentParams,
  SendInvoiceParams,
} from "./params/invoices.ts";
import {
  DeleteMessageParams,
  EditMessageReplyMarkupParams,
  EditMessageTextParams,
  SendMessageParams,
} from "./params/messages.ts";

const row = rowsOf<InvoiceDomain>();

/**
 * The Bot API methods this service owns (the contract's `invoices` methods): Stars and the
 * messages around them, each its schema, its line in docs/methods.md and its handler. The edge:
 * each domain outcome becomes the Bot API answer here.
 */
export const INVOICE_METHODS = {
  sendInvoice: row({
    params: SendInvoiceParams,
    summary: "an invoice in XTR to a private chat or channel; the Message (docs/invoices.md)",
    handler: async (d, { bot, params }) => answer(await sendInvoice(d, bot, params)),
  }),
  createInvoiceLink: row({
    params: CreateInvoiceLinkParams,
    summary: "the same product checks; a link string (subscription_period only 2592000)",
    handler: async (d, { botId, params }) => answer(await createInvoiceLink(d, botId, params)),
  }),
  answerPreCheckoutQuery: row({
    params: AnswerPreCheckoutQueryParams,
    summary: "approve (credits the ledger, appends successful_payment) or decline, once, within 10 s",
    handler: async (d, { botId, params }) => answer(await answerPreCheckoutQuery(d, botId, params)),
  }),
  refundStarPayment: row({
    params: RefundStarPaymentParams,
    summary: "refunds a charge once; appends refunded_payment",
    handler: async (d, { botId, params }) => answer(await refundStarPayment(d, botId, params)),
  }),
  editUserStarSubscription: row({
    params: EditUserStarSubscriptionParams,
    summary: "cancels (is_canceled true) or re-enables a subscription named by its first charge id; true",
    handler: async (d, { botId, params }) => answer(await editUserStarSubscription(d, botId, params)),
  }),
  getStarTransactions: row({
    params: GetStarTransactionsParams,
    summary: "the Star ledger, oldest first, offset and limit 1..100",
    handler: async (d, { botId, params }) => answer(await getStarTransactions(d, botId, params)),
  }),
  getMyStarBalance: row({
    params: GetMyStarBalanceParams,
    summary: "the bot's Star balance",
    handler: async (d, { botId }) => answer(await getMyStarBalance(d, botId)),
  }),
  getAvailableGifts: row({
    params: GetAvailableGiftsParams,
    summary: "the gifts the bot can send: none in starpost, so `{gifts: []}`",
    handler: async () => ok({ gifts: [] }),
  }),
  sendMessage: row({
    params: SendMessageParams,
    summary:
      "a text (1-4096 characters after parse_mode HTML/MarkdownV2/Markdown or explicit entities) to a private chat or channel, with an inline keyboard; the Message (docs/messages.md)",
    handler: async (d, { bot, params }) => answer(await sendMessage(d, bot, params)),
  }),
  editMessageText: row({
    params: EditMessageTextParams,
    summary: "the bot's own text message: new text, entities and markup; the edited Message",
    handler: async (d, { botId, params }) => answer(await editMessageText(d, botId, params)),
  }),
  editMessageReplyMarkup: row({
    params: EditMessageReplyMarkupParams,
    summary: "the bot's own message: new (or no) inline keyboard; the edited Message",
    handler: async (d, { botId, params }) => answer(await editMessageReplyMarkup(d, botId, params)),
  }),
  deleteMessage: row({
    params: DeleteMessageParams,
    summary: "deletes a message of the chat's history; true",
    handler: async (d, { botId, params }) => answer(await deleteMessage(d, botId, params)),
  }),
  answerCallbackQuery: row({
    params: AnswerCallbackQueryParams,
    summary: "answers a button press once; the platform's press call can wait for the answer (text, show_alert, url)",
    handler: async (d, { botId, params }) => answer(await answerCallbackQuery(d, botId, params)),
  }),
} satisfies MethodTable<"invoices", InvoiceDomain>;
