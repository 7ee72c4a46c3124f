import { channels, keys, RawJson, ok } from "@starpost/shared";
import { fill, jsonTemplate } from "../lua/template.ts";
import { botFrom, type BotRecord } from "@starpost/runtime";
import type { Outcome } from "../outcomes.ts";
import type { InvoiceDomain } from "./deps.ts";
import { invoiceScripts } from "../lua/index.ts";

export interface BotMessage {
  /** the Message's members after `date`, in the official key order (undefined ones left out). */
  content: Record<string, unknown>;
  /** the invoice behind an invoice message; "" for a text. */
  record: string;
  /** the refusal when the chat is a group or supergroup. */
  chatTypeRefusal: "invoice_chat_type" | "message_chat_type";
}

export type BotMessageOutcome = Outcome<
  RawJson,
  {
    outcome: "chat_id_empty" | "chat_not_found" | "reply_not_found" | BotMessage["chatTypeRefusal"];
  }
>;

/**
 * The Message a bot sends, for send-invoice.lua to complete (lua/template.ts): every member built
 * here in the official order; the step fills in message_id, chat, the sender member (`from` in
 * a private chat, `sender_chat` in a channel) and, in the answer only, reply_to_message.
 */
function messageTemplate(botJson: string, date: number, content: Record<string, unknown>) {
  const body = jsonTemplate(content).json;
  const head = `{"message_id":${fill("message_id").json},${fill("sender").json},"chat":${fill("chat").json},"date":${date}${fill("reply").json}`;
  return {
    message: body === "{}" ? `${head}}` : `${head},${body.slice(1)}`,
    from: `"from":${botJson}`,
    senderChat: `"sender_chat":${fill("chat").json}`,
    reply: `,"reply_to_message":${fill("replied").json}`,
  };
}

/**
 * Sends a bot message (a text, or an invoice) in one Lua step: the chat, the replied message,
 * the chat's next message_id, the stored message, the wake-up of a waiting history read. The
 * Message JSON is built here (messageTemplate), completed by the step and goes out as is.
 */
export async function sendBotMessage(
  d: InvoiceDomain,
  bot: BotRecord,
  p: {
    chat_id: string;
    reply_parameters?: { message_id: number; chat_id?: string; allow_sending_without_reply: boolean };
  },
  m: BotMessage,
): Promise<BotMessageOutcome> {
  if (p.chat_id === "") return { outcome: "chat_id_empty" };
  // The bot as the gateway authenticated it, sent with the call: no read of its record here.
  const botJson = JSON.stringify(botFrom(bot));
  const botId = bot.id;
  const reply = p.reply_parameters;
  const sent = await invoiceScripts.sendInvoice(
    d.redis,
    {
      chats: keys.chats(botId),
      chatUsernames: keys.chatUsernames(botId),
      messageSeq: keys.messageSeq(botId),
      messages: keys.messages(botId),
      invoices: keys.invoices(botId),
    },
    {
      chatId: p.chat_id,
      ...messageTemplate(botJson, Math.floor(Date.now() / 1000), m.content),
      record: m.record,
      replyTo: reply ? reply.message_id : "",
      replyChat: reply?.chat_id ?? "",
      withoutReply: reply?.allow_sending_without_reply ? "1" : "0",
      wakeChannel: channels.chatWrote.name(botId),
      botId,
    },
  );
  if (sent.status === "ok") return ok(new RawJson(sent.message));
  if (sent.status === "chat_type") return { outcome: m.chatTypeRefusal };
  return { outcome: sent.status };
}
