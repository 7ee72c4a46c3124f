import { answerWith, Errors, type Outcome as AnyOutcome, type RefusalMap, type RefusalOf } from "@starpost/shared";

/**
 * The refusals of the updates service and their registry entries: the one map the edge (the
 * method handlers and the platform routes) applies with `answer`. Domain code answers
 * `ok(result)` or one of these by name.
 */
const REFUSALS = {
  bot_not_found: () => Errors.botNotFound(),
  // Bots (platform API)
  token_format_invalid: () => Errors.tokenFormatInvalid(),
  token_taken: () => Errors.tokenTaken(),
  username_taken: () => Errors.usernameTaken(),
  chat_id_sign: () => Errors.chatIdSign(),
  fault_method_unknown: (r: { method: string }) => Errors.faultMethodUnknown(r.method),
  fault_description_required: (r: { error_code: number }) => Errors.faultDescriptionRequired(r.error_code),
  too_many_faults: (r: { max: number }) => Errors.tooManyFaults(r.max),
  // Replays
  replay_pending: (r: { update_id: number }) => Errors.replayPending(r.update_id),
  replay_not_found: (r: { update_id: number }) => Errors.replayNotFound(r.update_id),
  // Updates pushed through the platform API
  too_many_updates: () => Errors.tooManyUpdates(),
  idempotency_key_reused: () => Errors.pushIdempotencyKeyReused(),
  update_not_object: () => Errors.updateNotObject(),
  update_id_given: () => Errors.updateIdGiven(),
  update_kind_count: () => Errors.updateKindCount(),
  update_kind_unknown: (r: { kind: string }) => Errors.updateKindUnknown(r.kind),
  update_kind_never_produced: (r: { kind: string }) => Errors.updateKindNeverProduced(r.kind),
  update_kind_not_object: (r: { kind: string }) => Errors.updateKindNotObject(r.kind),
  // setWebhook
  set_webhook_too_often: () => Errors.tooManyRequests(1),
  webhook_ip_reserved: (r: { ip: string }) => Errors.webhookIpReserved(r.ip),
  webhook_host_unresolved: () => Errors.webhookHostUnresolved(),
  webhook_own_endpoint: (r: { ip: string; port: number }) => Errors.webhookOwnEndpoint(r.ip, r.port),
} satisfies RefusalMap;

export type Refusal = RefusalOf<typeof REFUSALS>;
/** A domain step's answer: `ok` with its result, or one of the refusals R. */
export type Outcome<T, R extends Refusal = Refusal> = AnyOutcome<T, R>;
export const answer = answerWith(REFUSALS);
