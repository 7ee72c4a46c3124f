import { answerWith, Errors, type Outcome as AnyOutcome, type RefusalMap, type RefusalOf } from "@starpost/shared";
import { STORAGE_UNAVAILABLE_RETRY_AFTER_S } from "@starpost/runtime";

/**
 * The refusals of the gateway's own methods and their registry entries, applied at the edge with
 * `answer`: getUpdates' 409s, by what ended or refused the poll, and a failed read of the log
 * (Redis not answering, or anything else).
 */
const REFUSALS = {
  webhook_active: () => Errors.conflictWebhookActive(),
  set_webhook: () => Errors.conflictSetWebhook(),
  other_get_updates: () => Errors.conflictOtherGetUpdates(),
  poll_failed: () => Errors.internal(),
  storage_unavailable: () => Errors.storageUnavailable(STORAGE_UNAVAILABLE_RETRY_AFTER_S),
} satisfies RefusalMap;

export type Refusal = RefusalOf<typeof REFUSALS>;
/** A domain step's answer: `ok` with its result, or one of the refusals R. */
export type Outcome<T, R extends Refusal = Refusal> = AnyOutcome<T, R>;
export const answer = answerWith(REFUSALS);
