import { keys, RawJson, ok } from "@starpost/shared";
import type { Outcome } from "../outcomes.ts";
import type { InvoiceDomain } from "./deps.ts";

export interface BotMessage {
  /** the Message JSON after `date`, in the official key order. */
  tail: string;
  /** the invoice behind an invoice message; "" for a text. */
  record: string;
  /** the refusal when the chat is a group or supergroup. */
  chatTypeRefusal: "invoice_chat_type" | "message_chat_type";
}

export type BotMessageOutcome = Outcome<
  RawJson,
  {
    outcome:
      "chat_id_empty" | "bot_unauthorized" | "chat_not_found" | "reply_not_found" | BotMessage["chatTypeRefusal"];
  }
>;

/**
 * Sends a bot message (a text, or an invoice) in one Lua step: the chat, the replied message,
 * the chat's next message_id, the stored message, the wake-up of a waiting history read. The
 * Message JSON is assembled in key order by the Lua step and goes out as is.
 */
export async function sendBotMessage(
  d: InvoiceDomain,
  botId: string,
  p: {
    chat_id: string;
    reply_parameters?: { message_id: number; chat_id?: string; allow_sending_without_reply: boolean };
  },
  m: BotMessage,
): Promise<BotMessageOutcome> {
  if (p.chat_id === "") return { outcome: "chat_id_empty" };
  const botJson = await d.bots.json(botId);
  if (botJson === undefined) return { outcome: "bot_unauthorized" };
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
    m.tail,
    m.record,
    reply ? reply.message_id : "",
    reply?.chat_id ?? "",
    reply?.allow_sending_without_reply ? "1" : "0",
    keys.chatWakeChannel(botId),
    botId,
  );
  if (status === "chat_not_found") return { outcome: "chat_not_found" };
  if (status === "chat_type") return { outcome: m.chatTypeRefusal };
  if (status === "reply_not_found") return { outcome: "reply_not_found" };
  return ok(new RawJson(message!));
}
