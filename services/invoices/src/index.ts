export { buildApp, PRE_CHECKOUT_ANSWER_MS, type InvoicesDeps } from "./app.ts";
export { INVOICE_METHODS } from "./methods.ts";
