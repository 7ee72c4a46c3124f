import { z } from "zod";
import { boolParam, int64Id, looseInt, optionalString } from "@starpost/shared";

/**
 * answerCallbackQuery (Client.cpp at 01a3679, line 14319): the id read with `to_integer<int64>`
 * ("" and "abc" are 0, which names no query), the rest the official server's way (cache_time
 * clamped to 0..2592000, never an error). A press made through the platform API is shown the
 * answer; otherwise it is unused.
 */
export const AnswerCallbackQueryParams = z
  .looseObject({
    callback_query_id: int64Id(),
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
    cache_time: Math.min(2_592_000, Math.max(0, p.cache_time ?? 0)),
  }));
export type AnswerCallbackQueryParams = z.infer<typeof AnswerCallbackQueryParams>;
