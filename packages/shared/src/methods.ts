import type { z } from "zod";
import { CloseParams, GetMeParams, LogOutParams } from "./params/bot.ts";
import { AnswerCallbackQueryParams } from "./params/callbacks.ts";
import {
  AnswerPreCheckoutQueryParams,
  CreateInvoiceLinkParams,
  GetMyStarBalanceParams,
  GetStarTransactionsParams,
  EditUserStarSubscriptionParams,
  RefundStarPaymentParams,
  SendInvoiceParams,
} from "./params/invoices.ts";
import { GetUpdatesParams } from "./params/get-updates.ts";
import {
  DeleteMessageParams,
  EditMessageReplyMarkupParams,
  EditMessageTextParams,
  SendMessageParams,
} from "./params/messages.ts";
import { DeleteWebhookParams, GetWebhookInfoParams, SetWebhookParams } from "./params/webhook.ts";

export type ServiceName = "gateway" | "invoices" | "updates";

export interface MethodSpec {
  /** the owning service: the gateway forwards the call there, or answers it itself. */
  service: ServiceName;
  params: z.ZodType;
  /** one line for docs/methods.md. */
  summary: string;
  /** holds the request open (a long poll, held by the gateway): answered with an empty result when the gateway shuts down. */
  longPoll?: true;
  /** false: a webhook answer may not run it (the official server refuses get*, setWebhook, deleteWebhook, close, logOut there). */
  webhookReply?: false;
}

/**
 * The one table of the Bot API surface starpost serves. The gateway routes from it, services
 * validate from it, docs/methods.md and the tests enumerate it. A new method is one row here
 * plus one handler in the owning service.
 */
export const METHODS = {
  getMe: {
    service: "gateway",
    params: GetMeParams,
    summary: "the bot's User: id, is_bot, first_name, username and the getMe-only flags",
    webhookReply: false,
  },
  logOut: {
    service: "gateway",
    params: LogOutParams,
    summary: "true; starpost is the bot's only server, so there is nothing to log out of",
    webhookReply: false,
  },
  close: { service: "gateway", params: CloseParams, summary: "true; nothing to release", webhookReply: false },

  getUpdates: {
    service: "gateway",
    params: GetUpdatesParams,
    summary:
      "long polling: offset confirms, limit 1..100, timeout 0..50 s, allowed_updates remembered; 409 on conflicts (docs/polling.md)",
    longPoll: true,
    webhookReply: false,
  },
  setWebhook: {
    service: "updates",
    params: SetWebhookParams,
    summary:
      "http or https on any port, secret_token, max_connections 1..100, allowed_updates, drop_pending_updates, ip_address; SSRF guard (docs/webhooks.md)",
    webhookReply: false,
  },
  deleteWebhook: {
    service: "updates",
    params: DeleteWebhookParams,
    summary: "removes the webhook so getUpdates works again; drop_pending_updates",
    webhookReply: false,
  },
  getWebhookInfo: {
    service: "updates",
    params: GetWebhookInfoParams,
    summary: "url, pending_update_count, last error, max_connections, ip_address, allowed_updates",
    webhookReply: false,
  },

  sendInvoice: {
    service: "invoices",
    params: SendInvoiceParams,
    summary: "an invoice in XTR to a private chat or channel; the Message (docs/invoices.md)",
  },
  createInvoiceLink: {
    service: "invoices",
    params: CreateInvoiceLinkParams,
    summary: "the same product checks; a link string (subscription_period only 2592000)",
  },
  answerPreCheckoutQuery: {
    service: "invoices",
    params: AnswerPreCheckoutQueryParams,
    summary: "approve (credits the ledger, appends successful_payment) or decline, once, within 10 s",
  },
  refundStarPayment: {
    service: "invoices",
    params: RefundStarPaymentParams,
    summary: "refunds a charge once; appends refunded_payment",
  },
  editUserStarSubscription: {
    service: "invoices",
    params: EditUserStarSubscriptionParams,
    summary: "cancels (is_canceled true) or re-enables a subscription named by its first charge id; true",
  },
  getStarTransactions: {
    service: "invoices",
    params: GetStarTransactionsParams,
    summary: "the Star ledger, oldest first, offset and limit 1..100",
    webhookReply: false,
  },
  getMyStarBalance: {
    service: "invoices",
    params: GetMyStarBalanceParams,
    summary: "the bot's Star balance",
    webhookReply: false,
  },

  sendMessage: {
    service: "invoices",
    params: SendMessageParams,
    summary:
      "a text (1-4096 characters after parse_mode HTML/MarkdownV2/Markdown or explicit entities) to a private chat or channel, with an inline keyboard; the Message (docs/messages.md)",
  },
  editMessageText: {
    service: "invoices",
    params: EditMessageTextParams,
    summary: "the bot's own text message: new text, entities and markup; the edited Message",
  },
  editMessageReplyMarkup: {
    service: "invoices",
    params: EditMessageReplyMarkupParams,
    summary: "the bot's own message: new (or no) inline keyboard; the edited Message",
  },
  deleteMessage: {
    service: "invoices",
    params: DeleteMessageParams,
    summary: "deletes a message of the chat's history; true",
  },
  answerCallbackQuery: {
    service: "invoices",
    params: AnswerCallbackQueryParams,
    summary: "answers a button press once; the platform's press call can wait for the answer (text, show_alert, url)",
  },
} as const satisfies Record<string, MethodSpec>;

export type MethodName = keyof typeof METHODS;
export type ParamsOf<M extends MethodName> = z.infer<(typeof METHODS)[M]["params"]>;

const byLowerName = new Map(Object.keys(METHODS).map((name) => [name.toLowerCase(), name as MethodName]));

/** Method names are case-insensitive on the wire (`setWebHook` works). */
export function findMethod(name: string): MethodName | undefined {
  return byLowerName.get(name.toLowerCase());
}
