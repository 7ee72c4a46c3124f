import type { z } from "zod";
import { CloseParams, GetMeParams, LogOutParams } from "./params/bot.ts";
import { AnswerCallbackQueryParams } from "./params/callbacks.ts";
import {
  AnswerPreCheckoutQueryParams,
  CreateInvoiceLinkParams,
  GetMyStarBalanceParams,
  GetStarTransactionsParams,
  RefundStarPaymentParams,
  SendInvoiceParams,
} from "./params/invoices.ts";
import { GetUpdatesParams } from "./params/get-updates.ts";
import { DeleteWebhookParams, GetWebhookInfoParams, SetWebhookParams } from "./params/webhook.ts";

export type ServiceName = "gateway" | "invoices" | "updates";

export interface MethodSpec {
  /** the owning service: the gateway forwards the call there. */
  service: ServiceName;
  params: z.ZodType;
}

/**
 * The one table of the Bot API surface starpost serves. The gateway routes from it, services
 * validate from it, docs/methods.md and the tests enumerate it. A new method is one row here
 * plus one handler in the owning service.
 */
export const METHODS = {
  getMe: { service: "gateway", params: GetMeParams },
  logOut: { service: "gateway", params: LogOutParams },
  close: { service: "gateway", params: CloseParams },

  getUpdates: { service: "updates", params: GetUpdatesParams },
  setWebhook: { service: "updates", params: SetWebhookParams },
  deleteWebhook: { service: "updates", params: DeleteWebhookParams },
  getWebhookInfo: { service: "updates", params: GetWebhookInfoParams },
  answerCallbackQuery: { service: "updates", params: AnswerCallbackQueryParams },

  sendInvoice: { service: "invoices", params: SendInvoiceParams },
  createInvoiceLink: { service: "invoices", params: CreateInvoiceLinkParams },
  answerPreCheckoutQuery: { service: "invoices", params: AnswerPreCheckoutQueryParams },
  refundStarPayment: { service: "invoices", params: RefundStarPaymentParams },
  getStarTransactions: { service: "invoices", params: GetStarTransactionsParams },
  getMyStarBalance: { service: "invoices", params: GetMyStarBalanceParams },
} as const satisfies Record<string, MethodSpec>;

export type MethodName = keyof typeof METHODS;
export type ParamsOf<M extends MethodName> = z.infer<(typeof METHODS)[M]["params"]>;

const byLowerName = new Map(Object.keys(METHODS).map((name) => [name.toLowerCase(), name as MethodName]));

/** Method names are case-insensitive on the wire (`setWebHook` works). */
export function findMethod(name: string): MethodName | undefined {
  return byLowerName.get(name.toLowerCase());
}

export function methodsOf(service: ServiceName): MethodName[] {
  return (Object.keys(METHODS) as MethodName[]).filter((m) => METHODS[m].service === service);
}
