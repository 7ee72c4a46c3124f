import type { MethodHandlers } from "@starpost/shared";
import type { InvoiceDomain } from "./domain/deps.ts";
import { createInvoiceLink } from "./domain/invoice-link.ts";
import { getMyStarBalance, getStarTransactions } from "./domain/ledger.ts";
import { answerPreCheckoutQuery } from "./domain/payments.ts";
import { refundStarPayment } from "./domain/refunds.ts";
import { sendInvoice } from "./domain/send-invoice.ts";

/** The Bot API methods this service owns (the method table's `invoices` rows). */
export function invoiceHandlers(d: InvoiceDomain): MethodHandlers {
  return {
    sendInvoice: ({ botId, params }) => sendInvoice(d, botId, params),
    createInvoiceLink: ({ params }) => createInvoiceLink(params),
    answerPreCheckoutQuery: ({ botId, params }) => answerPreCheckoutQuery(d, botId, params),
    refundStarPayment: ({ botId, params }) => refundStarPayment(d, botId, params),
    getStarTransactions: ({ botId, params }) => getStarTransactions(d, botId, params),
    getMyStarBalance: ({ botId }) => getMyStarBalance(d, botId),
  };
}
