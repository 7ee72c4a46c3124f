import { Errors, failure, keys, RawJson, success, type MethodOutcome, type ParamsOf } from "@starpost/shared";
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

/** sendInvoice after the parameter checks: the chat step, then one atomic store (Lua). */
export async function sendInvoice(d: InvoiceDomain, botId: string, p: ParamsOf<"sendInvoice">): Promise<MethodOutcome> {
  if (p.chat_id === "") return failure(Errors.chatIdEmpty());
  const botJson = await d.bots.json(botId);
  if (botJson === undefined) return failure(Errors.unauthorized());
  const record: InvoiceRecord = {
    payload: p.product.payload,
    currency: p.product.currency,
    total_amount: p.product.total_amount,
    title: p.product.title,
  };
  const reply = p.reply_parameters;
  const [status, , message] = await d.redis.spSendInvoice(
    keys.chats(botId),
    keys.chatUsernames(botId),
    keys.messageSeq(botId),
    keys.messages(botId),
    keys.invoices(botId),
    p.chat_id,
    botJson,
    Math.floor(Date.now() / 1000),
    messageTail(p),
    JSON.stringify(record),
    reply ? reply.message_id : "",
    reply?.chat_id ?? "",
    reply?.allow_sending_without_reply ? "1" : "0",
    keys.chatWakeChannel(),
    botId,
  );
  if (status === "chat_not_found") return failure(Errors.chatNotFound());
  if (status === "chat_type") return failure(Errors.chatTypeUnsupported());
  if (status === "reply_not_found") return failure(Errors.replyNotFound());
  // The Message JSON was assembled in key order by the Lua step; it goes out as is.
  return success(new RawJson(message!));
}
