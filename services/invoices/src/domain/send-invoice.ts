import type { ParamsOf } from "@starpost/shared";
import { sendBotMessage, type BotMessageOutcome } from "./bot-message.ts";
import type { InvoiceDomain } from "./deps.ts";

/** What a payment needs to know about an invoice message (never shown to users). */
export interface InvoiceRecord {
  payload: string;
  currency: "XTR";
  total_amount: number;
  title: string;
}

/**
 * The Message after `date`, as the official server orders it: invoice, reply_markup when one was
 * given, has_protected_content only when true.
 */
function messageTail(p: ParamsOf<"sendInvoice">): string {
  const { product } = p;
  const invoice = {
    title: product.title,
    description: product.description,
    start_parameter: p.start_parameter,
    currency: product.currency,
    total_amount: product.total_amount,
  };
  let tail = `,"invoice":${JSON.stringify(invoice)}`;
  if (p.reply_markup) tail += `,"reply_markup":${JSON.stringify(p.reply_markup)}`;
  if (p.protect_content) tail += `,"has_protected_content":true`;
  return `${tail}}`;
}

/** sendInvoice after the parameter checks: the message and its invoice in one atomic store (Lua). */
export function sendInvoice(d: InvoiceDomain, botId: string, p: ParamsOf<"sendInvoice">): Promise<BotMessageOutcome> {
  const record: InvoiceRecord = {
    payload: p.product.payload,
    currency: p.product.currency,
    total_amount: p.product.total_amount,
    title: p.product.title,
  };
  return sendBotMessage(d, botId, p, {
    tail: messageTail(p),
    record: JSON.stringify(record),
    chatTypeRefusal: "invoice_chat_type",
  });
}
