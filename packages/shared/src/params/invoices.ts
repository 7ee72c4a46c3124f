import { z } from "zod";

// Parameters of the Stars methods (owned by services/invoices).
export const SendInvoiceParams = z.looseObject({});
export const CreateInvoiceLinkParams = z.looseObject({});
export const AnswerPreCheckoutQueryParams = z.looseObject({});
export const RefundStarPaymentParams = z.looseObject({});
export const GetStarTransactionsParams = z.looseObject({});
export const GetMyStarBalanceParams = z.object({});
