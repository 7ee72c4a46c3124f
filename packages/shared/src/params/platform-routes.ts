import { z } from "zod";
import {
  CallbackQueryBody,
  ChatBody,
  ClockBody,
  BotListQuery,
  BotTagQuery,
  CreateBotBody,
  FaultBody,
  HistoryQuery,
  LinkPaymentBody,
  PaymentBody,
  RequestsQuery,
  StarsQuery,
  UpdatesBody,
  UserMessageBody,
  UserStarsBody,
} from "./platform.ts";

/**
 * Every platform route (`/platform/v1…`, forwarded by the gateway to `/internal/platform…` of the
 * service that owns it) with the zod schemas that validate its body and query. The gateway's
 * forwarding, the services' routes (a service refuses to register an internal platform route that
 * is not here) and the OpenAPI description all come from this one table. `body` and `query` are
 * required keys: `null` says the route takes none.
 */
export interface PlatformRoute {
  method: "GET" | "POST" | "PUT" | "DELETE";
  url: string;
  service: "updates" | "invoices";
  summary: string;
  body: z.ZodType | null;
  query: z.ZodType | null;
  /** What `result` holds in the `{ok: true, result}` answer. */
  result: string;
}

export const PLATFORM_ROUTES: PlatformRoute[] = [
  {
    method: "GET",
    url: "/bots",
    service: "updates",
    summary: "List the bots (with `tag`: those created with it)",
    body: null,
    query: BotListQuery,
    result: "{bots: [{id, username, first_name, tag?}]} (no tokens)",
  },
  {
    method: "POST",
    url: "/bots",
    service: "updates",
    summary: "Register a bot",
    body: CreateBotBody,
    query: null,
    result: "{id, is_bot, first_name, username, token, tag?}",
  },
  {
    method: "DELETE",
    url: "/bots",
    service: "updates",
    summary: "Delete every bot created with `tag`, and all their data",
    body: null,
    query: BotTagQuery,
    result: "{deleted: number}",
  },
  {
    method: "DELETE",
    url: "/bots/:botId",
    service: "updates",
    summary: "Delete a bot and all its data",
    body: null,
    query: null,
    result: "true",
  },
  {
    method: "POST",
    url: "/bots/:botId/token",
    service: "updates",
    summary: "Rotate a bot's token",
    body: null,
    query: null,
    result: "{token}",
  },
  {
    method: "GET",
    url: "/bots/:botId/chats",
    service: "updates",
    summary: "List the chats the bot knows",
    body: null,
    query: null,
    result: "{chats: [Chat]}",
  },
  {
    method: "PUT",
    url: "/bots/:botId/chats/:chatId",
    service: "updates",
    summary: "Store a chat for the bot",
    body: ChatBody,
    query: null,
    result: "Chat",
  },
  {
    method: "POST",
    url: "/bots/:botId/updates",
    service: "updates",
    summary: "Append updates to the bot's log",
    body: UpdatesBody,
    query: null,
    result: "{update_id} or an array of them",
  },
  {
    method: "GET",
    url: "/bots/:botId/webhook",
    service: "updates",
    summary: "The bot's webhook as getWebhookInfo shows it, with the next retry",
    body: null,
    query: null,
    result: "WebhookInfo and next_retry_date?",
  },
  {
    method: "POST",
    url: "/bots/:botId/payments",
    service: "invoices",
    summary: "Play a user paying an invoice",
    body: PaymentBody,
    query: null,
    result: "the payment's outcome",
  },
  {
    method: "POST",
    url: "/bots/:botId/invoice_links/pay",
    service: "invoices",
    summary: "Play a user paying an invoice link (a subscription's first payment)",
    body: LinkPaymentBody,
    query: null,
    result: "the payment's outcome",
  },
  {
    method: "POST",
    url: "/bots/:botId/clock",
    service: "invoices",
    summary: "Move the bot's subscription clock forward; due renewals run",
    body: ClockBody,
    query: null,
    result: "{date, renewals, ended}",
  },
  {
    method: "PUT",
    url: "/bots/:botId/users/:userId/stars",
    service: "invoices",
    summary: "Give a user a finite Star balance (null: unlimited)",
    body: UserStarsBody,
    query: null,
    result: "the user's Stars",
  },
  {
    method: "GET",
    url: "/bots/:botId/stars",
    service: "invoices",
    summary: "The bot's Star balance and ledger",
    body: null,
    query: StarsQuery,
    result: "{balance: StarAmount, transactions: [StarTransaction]}",
  },
  {
    method: "POST",
    url: "/bots/:botId/chats/:chatId/messages",
    service: "invoices",
    summary: "The user sends a text",
    body: UserMessageBody,
    query: null,
    result: "{update_id, message}",
  },
  {
    method: "GET",
    url: "/bots/:botId/chats/:chatId/messages",
    service: "invoices",
    summary: "The chat's history, optionally held until the bot's next message",
    body: null,
    query: HistoryQuery,
    result: "{messages: [Message]}",
  },
  {
    method: "POST",
    url: "/bots/:botId/chats/:chatId/callback_queries",
    service: "invoices",
    summary: "The user presses an inline button",
    body: CallbackQueryBody,
    query: null,
    result: "{update_id, callback_query_id, answer?}",
  },
  {
    method: "POST",
    url: "/bots/:botId/faults",
    service: "updates",
    summary: "Script a fault for the bot's next calls",
    body: FaultBody,
    query: null,
    result: "{id}",
  },
  {
    method: "GET",
    url: "/bots/:botId/faults",
    service: "updates",
    summary: "List the bot's faults",
    body: null,
    query: null,
    result: "{faults: [Fault]}",
  },
  {
    method: "DELETE",
    url: "/bots/:botId/faults",
    service: "updates",
    summary: "Clear the bot's faults",
    body: null,
    query: null,
    result: "true",
  },
  {
    method: "GET",
    url: "/bots/:botId/requests",
    service: "updates",
    summary: "The bot's recent Bot API calls",
    body: null,
    query: RequestsQuery,
    result: "{requests: [Request]}",
  },
];
