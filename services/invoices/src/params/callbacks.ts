import { z } from "zod";
import { boolParam, looseInt, optionalString, requiredString } from "@starpost/shared";

/**
 * answerCallbackQuery (owned by services/updates). The button press itself comes from the
 * platform; starpost has no client to show the answer to, so everything but the id is read the
 * official server's way (cache_time clamped to 0..864000, never an error) and then unused.
 */
export const AnswerCallbackQueryParams = z
  .looseObject({
    callback_query_id: requiredString("callback_query_id"),
    text: optionalString(),
    show_alert: boolParam(),
    url: optionalString(),
    cache_time: looseInt(),
  })
  .transform((p) => ({
    callback_query_id: p.callback_query_id,
    text: p.text ?? "",
    show_alert: p.show_alert ?? false,
    url: p.url ?? "",
    cache_time: Math.min(864_000, Math.max(0, p.cache_time ?? 0)),
  }));
export type AnswerCallbackQueryParams = z.infer<typeof AnswerCallbackQueryParams>;
