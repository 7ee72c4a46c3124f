import type { MethodHandlers } from "@starpost/shared";
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

/** The Bot API methods this service owns (the method table's `invoices` rows): Stars and the messages around them. */
export function invoiceHandlers(d: InvoiceDomain): MethodHandlers {
  return {
    sendInvoice: ({ botId, params }) => sendInvoice(d, botId, params),
    createInvoiceLink: ({ botId, params }) => createInvoiceLink(d, botId, params),
    answerPreCheckoutQuery: ({ botId, params }) => answerPreCheckoutQuery(d, botId, params),
    refundStarPayment: ({ botId, params }) => refundStarPayment(d, botId, params),
    editUserStarSubscription: ({ botId, params }) => editUserStarSubscription(d, botId, params),
    getStarTransactions: ({ botId, params }) => getStarTransactions(d, botId, params),
    getMyStarBalance: ({ botId }) => getMyStarBalance(d, botId),
    sendMessage: ({ botId, params }) => sendMessage(d, botId, params),
    editMessageText: ({ botId, params }) => editMessageText(d, botId, params),
    editMessageReplyMarkup: ({ botId, params }) => editMessageReplyMarkup(d, botId, params),
    deleteMessage: ({ botId, params }) => deleteMessage(d, botId, params),
    answerCallbackQuery: ({ botId, params }) => answerCallbackQuery(d, botId, params),
  };
}
