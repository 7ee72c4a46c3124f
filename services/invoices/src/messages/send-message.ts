import type { BotRecord } from "@starpost/runtime";
import type { MessageEntity } from "../params/entities.ts";
import { sendBotMessage, type BotMessageOutcome } from "../domain/bot-message.ts";
import type { InvoiceDomain } from "../domain/deps.ts";
import type { SendMessageParams } from "../params/messages.ts";

/** The Message members after `date` for a text, in the official order. */
export function textContent(p: {
  text: string;
  entities: MessageEntity[];
  reply_markup?: unknown;
  protect_content?: boolean;
}): Record<string, unknown> {
  return {
    text: p.text,
    entities: p.entities.length > 0 ? p.entities : undefined,
    reply_markup: p.reply_markup || undefined,
    has_protected_content: p.protect_content || undefined,
  };
}

/** sendMessage after the parameter checks: the same atomic step as sendInvoice, with no invoice behind the message. */
export function sendMessage(d: InvoiceDomain, bot: BotRecord, p: SendMessageParams): Promise<BotMessageOutcome> {
  return sendBotMessage(d, bot, p, {
    content: textContent(p),
    record: "",
    chatTypeRefusal: "message_chat_type",
  });
}
