import { channels, keys, ok } from "@starpost/shared";
import { invoiceScripts } from "../lua/index.ts";
import type { InvoiceDomain } from "../domain/deps.ts";
import type { Outcome } from "../outcomes.ts";
import type { AnswerCallbackQueryParams } from "../params/callbacks.ts";

/** A press (and its answer slot) lives as long as its callback_query update: 150 s. */
export const CALLBACK_LIFETIME_MS = 150_000;

export interface CallbackAnswer {
  text: string;
  show_alert: boolean;
  url: string;
}

/**
 * answerCallbackQuery: true for a live query, the reference's QUERY_ID_INVALID answer for any other
 * id (Client.cpp at 01a3679, line 146). For a press made through the platform API the answer is
 * kept and its waiter woken, in one step; a query pushed as an update is live for its lifetime.
 */
export async function answerCallbackQuery(
  d: InvoiceDomain,
  botId: string,
  p: AnswerCallbackQueryParams,
): Promise<Outcome<true, { outcome: "query_id_invalid" }>> {
  const id = p.callback_query_id;
  const answer: CallbackAnswer = { text: p.text, show_alert: p.show_alert, url: p.url };
  const kept = await invoiceScripts.answerCallback(
    d.redis,
    { answer: keys.callbackAnswer(botId, id), openQueries: keys.openCallbackQueries(botId) },
    {
      json: JSON.stringify(answer),
      lifetime: CALLBACK_LIFETIME_MS,
      answered: channels.callbackAnswered.name(botId),
      announce: channels.callbackAnswered.encode({ botId, id }),
      id,
    },
  );
  if (kept === "none") return { outcome: "query_id_invalid" };
  if (kept === "kept") d.callbackWaiters.wakeLocal(botId, id); // at once here; other replicas hear the step's message
  return ok(true);
}
