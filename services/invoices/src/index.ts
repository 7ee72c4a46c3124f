export { buildApp, type InvoicesDeps } from "./app.ts";
