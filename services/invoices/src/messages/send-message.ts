import type { MessageEntity, ParamsOf } from "@starpost/shared";
import { sendBotMessage, type BotMessageOutcome } from "../domain/bot-message.ts";
import type { InvoiceDomain } from "../domain/deps.ts";

/** The Message keys after `date` for a text, in the official order. */
export function textTail(p: {
  text: string;
  entities: MessageEntity[];
  reply_markup?: unknown;
  protect_content?: boolean;
}): string {
  let tail = `,"text":${JSON.stringify(p.text)}`;
  if (p.entities.length > 0) tail += `,"entities":${JSON.stringify(p.entities)}`;
  if (p.reply_markup) tail += `,"reply_markup":${JSON.stringify(p.reply_markup)}`;
  if (p.protect_content) tail += `,"has_protected_content":true`;
  return `${tail}}`;
}

/** sendMessage after the parameter checks: the same atomic step as sendInvoice, with no invoice behind the message. */
export function sendMessage(d: InvoiceDomain, botId: string, p: ParamsOf<"sendMessage">): Promise<BotMessageOutcome> {
  return sendBotMessage(d, botId, p, {
    tail: textTail(p),
    record: "",
    chatTypeRefusal: "message_chat_type",
  });
}
