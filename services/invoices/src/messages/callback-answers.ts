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
 * answerCallbackQuery: true for any id, as before (presses pushed as raw updates have no answer
 * slot). For a press made through the platform API the answer is kept and its waiter woken, in
 * one step.
 */
export async function answerCallbackQuery(
  d: InvoiceDomain,
  botId: string,
  p: AnswerCallbackQueryParams,
): Promise<Outcome<true, never>> {
  const id = p.callback_query_id;
  // Ids are ours (digits only); anything else cannot name a press and must not shape a key.
  if (!/^\d{1,20}$/.test(id)) return ok(true);
  const answer: CallbackAnswer = { text: p.text, show_alert: p.show_alert, url: p.url };
  const kept = await invoiceScripts.answerCallback(
    d.redis,
    { answer: keys.callbackAnswer(botId, id) },
    {
      json: JSON.stringify(answer),
      lifetime: CALLBACK_LIFETIME_MS,
      answered: channels.callbackAnswered.name(botId),
      announce: channels.callbackAnswered.encode({ botId, id }),
    },
  );
  if (kept) d.callbackWaiters.wakeLocal(botId, id); // at once here; other replicas hear the step's message
  return ok(true);
}
