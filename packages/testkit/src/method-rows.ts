import { GATEWAY_METHODS } from "@starpost/gateway";
import { INVOICE_METHODS } from "@starpost/invoices";
import { WEBHOOK_METHODS } from "@starpost/updates";

/**
 * Every service's method table together, each row where its owner keeps it: for the tests and
 * docs/methods.md, which enumerate the Bot API surface (the contract's METHODS names the owners).
 */
export const METHOD_ROWS = { ...GATEWAY_METHODS, ...INVOICE_METHODS, ...WEBHOOK_METHODS };
