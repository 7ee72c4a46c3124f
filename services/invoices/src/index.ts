export { buildApp, PRE_CHECKOUT_ANSWER_MS, type InvoicesDeps } from "./app.ts";
