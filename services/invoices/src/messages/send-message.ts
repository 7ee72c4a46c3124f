import { Errors, failure, keys, RawJson, success, type MessageEntity, type MethodOutcome, type ParamsOf } from "@starpost/shared";
import type { InvoiceDomain } from "../domain/deps.ts";

/** The Message keys after `date` for a text, in the official order. */
export function textTail(p: { text: string; entities: MessageEntity[]; reply_markup?: unknown; protect_content?: boolean }): string {
  let tail = `,"text":${JSON.stringify(p.text)}`;
  if (p.entities.length > 0) tail += `,"entities":${JSON.stringify(p.entities)}`;
  if (p.reply_markup) tail += `,"reply_markup":${JSON.stringify(p.reply_markup)}`;
  if (p.protect_content) tail += `,"has_protected_content":true`;
  return `${tail}}`;
}

/**
 * sendMessage after the parameter checks: the same atomic step as sendInvoice (chat, reply,
 * the chat's next message_id, the stored message, the wake-up of a waiting history read), with
 * no invoice behind the message.
 */
export async function sendMessage(d: InvoiceDomain, botId: string, p: ParamsOf<"sendMessage">): Promise<MethodOutcome> {
  if (p.chat_id === "") return failure(Errors.chatIdEmpty());
  const botJson = await d.bots.json(botId);
  if (botJson === undefined) return failure(Errors.unauthorized());
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
    textTail(p),
    "",
    reply ? reply.message_id : "",
    reply?.chat_id ?? "",
    reply?.allow_sending_without_reply ? "1" : "0",
    keys.chatWakeChannel(),
    botId,
  );
  if (status === "chat_not_found") return failure(Errors.chatNotFound());
  if (status === "chat_type") return failure(Errors.messageChatTypeUnsupported());
  if (status === "reply_not_found") return failure(Errors.replyNotFound());
  return success(new RawJson(message!));
}
