import { answerWith, Errors, type Outcome as AnyOutcome, type RefusalMap, type RefusalOf } from "@starpost/shared";

/**
 * The refusals of the invoices domain and their registry entries: the one map the edge (the
 * method handlers and the platform routes) applies with `answer`. Domain code answers
 * `ok(result)` or one of these by name.
 */
const REFUSALS = {
  bot_not_found: () => Errors.botNotFound(),
  chat_id_empty: () => Errors.chatIdEmpty(),
  chat_not_found: () => Errors.chatNotFound(),
  invoice_chat_type: () => Errors.chatTypeUnsupported(),
  message_chat_type: () => Errors.messageChatTypeUnsupported(),
  reply_not_found: () => Errors.replyNotFound(),
  // Payments, refunds and subscriptions
  invoice_message_not_found: () => Errors.invoiceMessageNotFound(),
  invoice_link_not_found: () => Errors.invoiceLinkNotFound(),
  stars_not_enough: () => Errors.starsNotEnough(),
  already_subscribed: () => Errors.alreadySubscribed(),
  idempotency_key_reused: () => Errors.idempotencyKeyReused(),
  query_id_invalid: () => Errors.queryIdInvalid(),
  user_not_found: () => Errors.userNotFound(),
  charge_not_found: () => Errors.chargeNotFound(),
  charge_already_refunded: () => Errors.chargeAlreadyRefunded(),
  subscription_expired: () => Errors.subscriptionExpired(),
  // Edits and deletes of the bot's messages
  message_to_edit_not_found: () => Errors.messageToEditNotFound(),
  message_cant_be_edited: () => Errors.messageCantBeEdited(),
  no_text_to_edit: () => Errors.noTextToEdit(),
  message_not_modified: () => Errors.messageNotModified(),
  message_to_delete_not_found: () => Errors.messageToDeleteNotFound(),
  edit_conflict: () => Errors.internal(),
  // The user's side of a chat (platform API)
  chat_unknown: (r: { chat_id: string }) => Errors.platformChatUnknown(r.chat_id),
  from_id_not_chat: () => Errors.platformFromIdNotChat(),
  from_required: () => Errors.platformFromRequired(),
  message_unknown: (r: { message_id: number }) => Errors.platformMessageUnknown(String(r.message_id)),
  not_bot_message: (r: { message_id: number }) => Errors.platformNotBotMessage(String(r.message_id)),
  button_unknown: (r: { data: string }) => Errors.platformButtonUnknown(r.data),
} satisfies RefusalMap;

export type Refusal = RefusalOf<typeof REFUSALS>;
/** A domain step's answer: `ok` with its result, or one of the refusals R. */
export type Outcome<T, R extends Refusal = Refusal> = AnyOutcome<T, R>;
export const answer = answerWith(REFUSALS);
