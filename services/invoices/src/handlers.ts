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
import { answer } from "./outcomes.ts";

/**
 * The Bot API methods this service owns (the method table's `invoices` rows): Stars and the
 * messages around them. The edge: each domain outcome becomes the Bot API answer here.
 */
export function invoiceHandlers(d: InvoiceDomain): MethodHandlers {
  return {
    sendInvoice: async ({ bot, params }) => answer(await sendInvoice(d, bot, params)),
    createInvoiceLink: async ({ botId, params }) => answer(await createInvoiceLink(d, botId, params)),
    answerPreCheckoutQuery: async ({ botId, params }) => answer(await answerPreCheckoutQuery(d, botId, params)),
    refundStarPayment: async ({ botId, params }) => answer(await refundStarPayment(d, botId, params)),
    editUserStarSubscription: async ({ botId, params }) => answer(await editUserStarSubscription(d, botId, params)),
    getStarTransactions: async ({ botId, params }) => answer(await getStarTransactions(d, botId, params)),
    getMyStarBalance: async ({ botId }) => answer(await getMyStarBalance(d, botId)),
    sendMessage: async ({ bot, params }) => answer(await sendMessage(d, bot, params)),
    editMessageText: async ({ botId, params }) => answer(await editMessageText(d, botId, params)),
    editMessageReplyMarkup: async ({ botId, params }) => answer(await editMessageReplyMarkup(d, botId, params)),
    deleteMessage: async ({ botId, params }) => answer(await deleteMessage(d, botId, params)),
    answerCallbackQuery: async ({ botId, params }) => answer(await answerCallbackQuery(d, botId, params)),
  };
}
