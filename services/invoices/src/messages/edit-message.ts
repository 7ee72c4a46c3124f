import { keys, RawJson, ok } from "@starpost/shared";
import { findChat } from "@starpost/runtime";
import type { InvoiceDomain } from "../domain/deps.ts";
import { invoiceScripts } from "../lua/index.ts";
import type { Outcome } from "../outcomes.ts";
import type { DeleteMessageParams, EditMessageReplyMarkupParams, EditMessageTextParams } from "../params/messages.ts";

type Message = Record<string, unknown>;

/** A message the bot sent: from the bot itself, or posted as a channel (sender_chat). */
export function isBotMessage(m: Message, botId: string): boolean {
  const from = m.from as { id?: number; is_bot?: boolean } | undefined;
  return (from?.is_bot === true && String(from.id) === botId) || m.sender_chat !== undefined;
}

/** Keys that an edit replaces; everything else keeps its place, edit_date goes after date. */
const EDITED = new Set(["edit_date", "text", "entities", "reply_markup", "has_protected_content"]);

function edited(m: Message, change: { text?: string; entities?: unknown[]; reply_markup?: unknown }): Message {
  const out: Message = {};
  for (const [k, v] of Object.entries(m)) {
    if (EDITED.has(k)) continue;
    out[k] = v;
    if (k === "date") out.edit_date = Math.floor(Date.now() / 1000);
  }
  const text = "text" in change ? change.text : m.text;
  const entities = "entities" in change ? change.entities : m.entities;
  if (text !== undefined) out.text = text;
  if (Array.isArray(entities) && entities.length > 0) out.entities = entities;
  if (change.reply_markup !== undefined) out.reply_markup = change.reply_markup;
  if (m.has_protected_content === true) out.has_protected_content = true;
  return out;
}

const same = (a: unknown, b: unknown) => JSON.stringify(a ?? null) === JSON.stringify(b ?? null);
const sameEntities = (a: unknown, b: unknown) =>
  same(Array.isArray(a) && a.length > 0 ? a : null, Array.isArray(b) && b.length > 0 ? b : null);

type EditRefusal = { outcome: "no_text_to_edit" | "message_not_modified" };
/** The edited message, or why the edit does not apply. */
type Edit = (m: Message) => { outcome: "edited"; message: Message } | EditRefusal;

export type EditOutcome = Outcome<
  RawJson,
  EditRefusal | { outcome: "chat_not_found" | "message_to_edit_not_found" | "message_cant_be_edited" | "edit_conflict" }
>;

/**
 * Reads the message, decides the edit here, and stores it with a compare-and-set step, so a
 * concurrent edit or delete is never overwritten (retried on the newer version instead).
 */
async function applyEdit(
  d: InvoiceDomain,
  botId: string,
  chatId: string,
  messageId: number,
  edit: Edit,
): Promise<EditOutcome> {
  const chat = await findChat(d.redis, botId, chatId);
  if (!chat) return { outcome: "chat_not_found" };
  const field = `${chat.id}:${messageId}`;
  for (let attempt = 0; attempt < 5; attempt++) {
    const json = await d.redis.hget(keys.messages(botId), field);
    if (json === null) return { outcome: "message_to_edit_not_found" };
    const message = JSON.parse(json) as Message;
    if (!isBotMessage(message, botId)) return { outcome: "message_cant_be_edited" };
    const next = edit(message);
    if (next.outcome !== "edited") return next;
    const nextJson = JSON.stringify(next.message);
    if (
      await invoiceScripts.replaceMessage(
        d.redis,
        { messages: keys.messages(botId) },
        { field, read: json, next: nextJson },
      )
    )
      return ok(new RawJson(nextJson));
  }
  return { outcome: "edit_conflict" };
}

export function editMessageText(d: InvoiceDomain, botId: string, p: EditMessageTextParams): Promise<EditOutcome> {
  return applyEdit(d, botId, p.chat_id, p.message_id, (m) => {
    if (typeof m.text !== "string") return { outcome: "no_text_to_edit" };
    if (m.text === p.text && sameEntities(m.entities, p.entities) && same(m.reply_markup, p.reply_markup))
      return { outcome: "message_not_modified" };
    return {
      outcome: "edited",
      message: edited(m, { text: p.text, entities: p.entities, reply_markup: p.reply_markup }),
    };
  });
}

export function editMessageReplyMarkup(
  d: InvoiceDomain,
  botId: string,
  p: EditMessageReplyMarkupParams,
): Promise<EditOutcome> {
  return applyEdit(d, botId, p.chat_id, p.message_id, (m) => {
    if (same(m.reply_markup, p.reply_markup)) return { outcome: "message_not_modified" };
    return { outcome: "edited", message: edited(m, { reply_markup: p.reply_markup }) };
  });
}

/** deleteMessage: any message of the chat's history (a bot may delete both sides of a private chat). */
export async function deleteMessage(
  d: InvoiceDomain,
  botId: string,
  p: DeleteMessageParams,
): Promise<Outcome<true, { outcome: "chat_not_found" | "message_to_delete_not_found" }>> {
  const chat = await findChat(d.redis, botId, p.chat_id);
  if (!chat) return { outcome: "chat_not_found" };
  const field = `${chat.id}:${p.message_id}`;
  // An invoice message goes with its invoice: it can no longer be paid.
  const [[, deleted]] = (await d.redis
    .multi()
    .hdel(keys.messages(botId), field, `${field}:reply`, `${field}:paid`)
    .hdel(keys.invoices(botId), field)
    .exec()) as [[Error | null, number]];
  return deleted >= 1 ? ok(true) : { outcome: "message_to_delete_not_found" };
}
