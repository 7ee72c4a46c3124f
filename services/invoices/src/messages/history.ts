import { CHAT_HISTORY_SIZE, keys, RawJson, type HistoryQuery, ok } from "@starpost/shared";
import type { Outcome } from "../outcomes.ts";
import type { InvoiceDomain } from "../domain/deps.ts";
import { isBotMessage } from "./edit-message.ts";

const DEFAULT_LIMIT = 100;

/**
 * A chat's history after `after`: message ids are gap-free per chat, so the history is the
 * stored messages `after+1 .. last` (deleted ones are holes; ids more than CHAT_HISTORY_SIZE below
 * `last` were trimmed), read in windows.
 */
async function read(d: InvoiceDomain, botId: string, chatId: string, after: number, limit: number): Promise<string[]> {
  const last = Number((await d.redis.hget(keys.messageSeq(botId), chatId)) ?? 0);
  const out: string[] = [];
  // Only the newest CHAT_HISTORY_SIZE can be there: the walk skips the trimmed ids.
  for (let next = Math.max(after, last - CHAT_HISTORY_SIZE) + 1; out.length < limit && next <= last;) {
    const end = Math.min(last, next + limit - out.length + 31);
    const fields = [];
    for (let id = next; id <= end; id++) fields.push(`${chatId}:${id}`);
    for (const row of await d.redis.hmget(keys.messages(botId), ...fields)) {
      if (row !== null && out.length < limit) out.push(row);
    }
    next = end + 1;
  }
  return out;
}

/**
 * The history's answer: the messages, and how many times each invoice message among them was
 * paid (`paid`: message id -> payments, from the answers' steps; unpaid ones are absent).
 */
async function answer(d: InvoiceDomain, botId: string, chatId: string, messages: string[]) {
  const invoices = messages
    .filter((m) => m.includes('"invoice":'))
    .map((m) => (JSON.parse(m) as { message_id: number }).message_id);
  const counts = invoices.length
    ? await d.redis.hmget(keys.messages(botId), ...invoices.map((id) => `${chatId}:${id}:paid`))
    : [];
  const paid = invoices.flatMap((id, i) => (counts[i] ? [`"${id}":${Number(counts[i])}`] : []));
  return ok(new RawJson(`{"messages":[${messages.join(",")}],"paid":{${paid.join(",")}}}`));
}

/**
 * `GET …/chats/:chatId/messages`: the history in order, with the invoices' payments; with
 * `wait_ms`, held until a bot message newer than `after_message_id` exists (woken by the bot's
 * send on any replica).
 */
export async function chatHistory(
  d: InvoiceDomain,
  botId: string,
  chatId: string,
  q: HistoryQuery,
  signal: AbortSignal,
): Promise<Outcome<RawJson, never>> {
  const after = q.after_message_id ?? 0;
  const limit = q.limit ?? DEFAULT_LIMIT;
  const deadline = Date.now() + (q.wait_ms ?? 0);
  for (;;) {
    const left = deadline - Date.now();
    const stop = new AbortController();
    // Listening starts before the read, so a message sent in between still wakes this call.
    const woken =
      left > 0
        ? (await d.chatWaiters.wait(botId, chatId, left, AbortSignal.any([signal, stop.signal]))).answered
        : undefined;
    const messages = await read(d, botId, chatId, after, limit);
    const done = !woken || signal.aborted || messages.some((m) => isBotMessage(JSON.parse(m), botId));
    if (done) {
      stop.abort();
      return answer(d, botId, chatId, messages);
    }
    if (!(await woken) && Date.now() >= deadline) return answer(d, botId, chatId, messages);
  }
}
