import type { BotRecord } from "@starpost/runtime";
import { sendBotMessage, type BotMessageOutcome } from "./bot-message.ts";
import type { InvoiceDomain } from "./deps.ts";
import type { SendInvoiceParams } from "../params/invoices.ts";

/** What a payment needs to know about an invoice message (never shown to users). */
export interface InvoiceRecord {
  payload: string;
  currency: "XTR";
  total_amount: number;
  title: string;
}

/**
 * The Message members after `date`, as the official server orders them: invoice, reply_markup
 * when one was given, has_protected_content only when true.
 */
function invoiceContent(p: SendInvoiceParams): Record<string, unknown> {
  const { product } = p;
  const invoice = {
    title: product.title,
    description: product.description,
    start_parameter: p.start_parameter,
    currency: product.currency,
    total_amount: product.total_amount,
  };
  return {
    invoice,
    reply_markup: p.reply_markup || undefined,
    has_protected_content: p.protect_content || undefined,
  };
}

/** sendInvoice after the parameter checks: the message and its invoice in one atomic store (Lua). */
export function sendInvoice(d: InvoiceDomain, bot: BotRecord, p: SendInvoiceParams): Promise<BotMessageOutcome> {
  const record: InvoiceRecord = {
    payload: p.product.payload,
    currency: p.product.currency,
    total_amount: p.product.total_amount,
    title: p.product.title,
  };
  return sendBotMessage(d, bot, p, {
    content: invoiceContent(p),
    record: JSON.stringify(record),
    chatTypeRefusal: "invoice_chat_type",
  });
}
