/**
 * The one registry of Bot API errors starpost answers. Every error a handler returns is built
 * from an entry here; `packages/shared/test/generated-docs.test.ts` checks each entry is used in the code and listed in
 * docs/errors.md. Texts match the official server (tdlib/telegram-bot-api) where it has one.
 */

export interface BotApiErrorBody {
  error_code: number;
  description: string;
  parameters?: { retry_after?: number; migrate_to_chat_id?: number };
}

/** The error object has the wire's shape, like grammY's GrammyError. */
export class BotApiError extends Error {
  readonly error_code: number;
  readonly description: string;
  readonly parameters?: BotApiErrorBody["parameters"];
  constructor(body: BotApiErrorBody) {
    super(body.description);
    this.name = "BotApiError";
    this.error_code = body.error_code;
    this.description = body.description;
    if (body.parameters && Object.keys(body.parameters).length > 0) this.parameters = body.parameters;
  }
  toJSON(): BotApiErrorBody & { ok: false } {
    return {
      ok: false,
      error_code: this.error_code,
      description: this.description,
      ...(this.parameters ? { parameters: this.parameters } : {}),
    };
  }
}

const bad = (text: string) => new BotApiError({ error_code: 400, description: `Bad Request: ${text}` });

/**
 * A td text as `fail_query_with_error` prints it (Client.cpp at 01a3679, line 199): its first
 * letter lowered, unless the second character is `_` or a capital (an error code such as
 * `INVOICE_TITLE_INVALID` stays as it is).
 */
const asReference = (m: string) => (m.length >= 2 && /[_A-Z]/.test(m[1]!) ? m : m.charAt(0).toLowerCase() + m.slice(1));
const entities = (text: string) => bad(`can't parse entities: ${text}`);

export const Errors = {
  // The request front (gateway)
  notFound: () => new BotApiError({ error_code: 404, description: "Not Found" }),
  methodNotFound: () => new BotApiError({ error_code: 404, description: "Not Found: method not found" }),
  invalidToken: () => new BotApiError({ error_code: 401, description: "Unauthorized: invalid token specified" }),
  unauthorized: () => new BotApiError({ error_code: 401, description: "Unauthorized" }),
  tooLarge: () => new BotApiError({ error_code: 413, description: "Request Entity Too Large" }),
  /** more parameters than GATEWAY_MAX_PARAMS: the reference's text for its own parameter bound (HttpReader.cpp). */
  tooManyParams: () =>
    new BotApiError({ error_code: 413, description: "Request Entity Too Large: too many parameters" }),
  badRequestBody: () => bad("can't parse request body"),
  boundaryNotFound: () => bad("boundary not found"),
  boundaryValueNotFound: () => bad("boundary value not found"),
  boundaryInvalid: () => bad("boundary too big or empty"),
  multipartHeadersEmpty: () => bad("headers in multipart/form-data are empty"),
  multipartHeaders: () => bad("can't parse form data headers"),
  multipartDisposition: () => bad("expected form-data content disposition"),
  multipartFieldName: () => bad("field name in multipart/form-data not found"),
  contentEncodingUnsupported: () =>
    new BotApiError({ error_code: 415, description: "Unsupported Media Type: unsupported content-encoding" }),
  contentEncodingBroken: (zlibCode: number) => bad(`zlib error ${zlibCode}`),
  /** bytes that are not an HTTP request (answered on the socket, before any route). */
  invalidHttpRequest: () => bad("invalid HTTP request"),
  /** a request not received whole within the gateway's time (answered on the socket, which is then closed). */
  requestTimeout: () => new BotApiError({ error_code: 408, description: "Request Timeout" }),
  internal: () => new BotApiError({ error_code: 500, description: "Internal Server Error" }),
  serviceUnavailable: () => new BotApiError({ error_code: 502, description: "Bad Gateway" }),
  tooManyRequests: (retryAfter: number) =>
    new BotApiError({
      error_code: 429,
      description: `Too Many Requests: retry after ${retryAfter}`,
      parameters: { retry_after: retryAfter },
    }),
  /**
   * Redis refused the call's write for memory (maxmemory with noeviction): nothing of the call was
   * applied, and the same call may be sent again after `retryAfter` seconds.
   */
  storageFull: (retryAfter: number) =>
    new BotApiError({
      error_code: 503,
      description: "Service Unavailable: storage is full, retry later",
      parameters: { retry_after: retryAfter },
    }),
  /**
   * Redis did not answer the call in time (frozen, overloaded, down or loading): the same call may
   * be sent again after `retryAfter` seconds (a push or payment with its idempotency_key is safe to repeat).
   */
  storageUnavailable: (retryAfter: number) =>
    new BotApiError({
      error_code: 503,
      description: "Service Unavailable: storage is not answering, retry later",
      parameters: { retry_after: retryAfter },
    }),

  // Generic parameter checks
  paramRequired: (name: string) => bad(`parameter "${name}" is required`),
  paramInvalid: (name: string) => bad(`parameter "${name}" is invalid`),

  // Platform API
  platformBodyContentType: (contentType: string) =>
    bad(`the body must be JSON: Content-Type is "${contentType}", expected "application/json"`),
  platformBodyEncoding: () => bad("the body must be JSON: Content-Encoding is not supported"),
  /** the text after the colon is the JSON parser's own (its position of the fault). */
  platformBodyJson: (parserMessage: string) => bad(`the body must be JSON: ${parserMessage}`),
  botNotFound: () => new BotApiError({ error_code: 404, description: "Not Found: bot not found" }),
  usernameInvalid: () => bad('username must be 5-32 characters of A-Z, a-z, 0-9 and _ and end in "bot"'),
  usernameTaken: () => bad("username is already taken"),
  tokenFormatInvalid: () => bad("token must look like <bot id>:<secret>"),
  tokenTaken: () => bad("a bot with this id already exists"),
  tagInvalid: () => bad("tag must be 1-64 characters of A-Z, a-z, 0-9 and _ . : -"),
  faultDuplicateInvalid: () =>
    bad('a duplicate-delivery fault is {"method":"delivery","duplicate":true}, with times or not, and nothing else'),
  replayPending: (updateId: number) => bad(`update ${updateId} is not confirmed yet: it is still waiting for delivery`),
  replayNotFound: (updateId: number) =>
    bad(`update ${updateId} is not in the bot's activity log (it keeps the newest 1000 entries)`),
  activityKindsInvalid: (kinds: string) => bad(`kinds must be a comma-separated list of: ${kinds}`),
  chatIdNotInteger: () => bad("invalid chat: the chat id must be an integer"),
  chatIdSign: () => bad("invalid chat: private chats have positive ids, other chats negative ones"),
  chatTypeInvalid: () => bad('invalid chat: type must be "private", "group", "supergroup" or "channel"'),
  chatUsernameInvalid: () => bad("invalid chat: bad username"),
  updateNotObject: () => bad("invalid update: an Update object is expected"),
  updateIdGiven: () => bad("invalid update: update_id is assigned by starpost"),
  updateKindCount: () => bad("invalid update: exactly one update kind is expected"),
  updateKindNotObject: (kind: string) => bad(`invalid update: "${kind}" must be an object`),
  updateKindNeverProduced: (kind: string) => bad(`update kind "${kind}" is never produced`),
  updateKindUnknown: (kind: string) => bad(`unknown update kind "${kind}"`),
  tooManyUpdates: () => bad("at most 1000 updates per call"),
  idempotencyKeyReused: () => bad("idempotency_key was already used for another payment"),
  pushIdempotencyKeyReused: () => bad("idempotency_key was already used for other updates"),

  // getUpdates and webhooks
  conflictWebhookActive: () =>
    new BotApiError({
      error_code: 409,
      description:
        "Conflict: can't use getUpdates method while webhook is active; use deleteWebhook to delete the webhook first",
    }),
  conflictOtherGetUpdates: () =>
    new BotApiError({
      error_code: 409,
      description: "Conflict: terminated by other getUpdates request; make sure that only one bot instance is running",
    }),
  conflictSetWebhook: () =>
    new BotApiError({ error_code: 409, description: "Conflict: terminated by setWebhook request" }),
  webhookUrlInvalid: () => bad("invalid webhook URL specified"),
  secretTokenTooLong: () => bad("secret token is too long"),
  secretTokenChars: () => bad("secret token contains unallowed characters"),
  webhookIpInvalid: () => bad("bad webhook: Invalid IP address specified"),
  webhookIpReserved: (ip: string) => bad(`bad webhook: IP address ${ip} is reserved`),
  webhookHostUnresolved: () => bad("bad webhook: Failed to resolve host: Name or service not known"),
  /** starpost's own listeners (own-endpoints.ts) are never a webhook, whatever the private-network setting. */
  webhookOwnEndpoint: (ip: string, port: number) => bad(`bad webhook: IP address ${ip} port ${port} is starpost's own`),

  // sendInvoice and the Stars lifecycle
  paymentProviderInvalid: () => bad("PAYMENT_PROVIDER_INVALID"),
  starsInvoiceInvalid: () => bad("STARS_INVOICE_INVALID"),
  pricesJson: () => bad("can't parse prices JSON object"),
  pricesNotArray: () => bad("expected an Array of labeled prices"),
  /** `detail`: the field getter's own text (td's JsonBuilder.cpp), e.g. `Field "amount" must be a valid Number`. */
  labeledPriceInvalid: (detail: string) => bad(`can't parse labeled price: ${detail}`),
  noPrices: () => bad("there must be at least one price"),
  titleInvalid: () => bad("INVOICE_TITLE_INVALID"),
  descriptionInvalid: () => bad("INVOICE_DESCRIPTION_INVALID"),
  payloadInvalid: () => bad("INVOICE_PAYLOAD_INVALID"),
  maxTipNotNumber: () => bad('can\'t parse "max_tip_amount" as Number'),
  maxTipInvalid: () => bad("invalid max_tip_amount of the currency specified"),
  priceTooBig: () => bad("too big amount of the currency specified"),
  totalPriceNotPositive: () => bad("total price must be positive"),
  totalPriceTooBig: () => bad("total price is too big"),
  tipsJson: () => bad("can't parse suggested_tip_amounts JSON object"),
  tipsNotArray: () => bad("expected an Array of suggested tip amounts"),
  tipNotNumberOrString: () => bad("suggested tip amount must be of type Number or String"),
  tipNotNumber: () => bad("can't parse suggested tip amount as Number"),
  tipsTooMany: () => bad("there can be at most 4 suggested tip amounts"),
  tipNotPositive: () => bad("suggested tip amount must be positive"),
  tipsNotIncreasing: () => bad("suggested tip amounts must be increasing"),
  tipAboveMax: () => bad("suggested tip amount can't be bigger than max_tip_amount"),
  chatIdEmpty: () => bad("chat_id is empty"),
  chatNotFound: () => bad("chat not found"),
  chatTypeUnsupported: () => bad("star invoices can be sent only to private chats and channels"),
  replyMarkupInvalid: () => bad("the first button of the first row must be a Pay button"),
  replyMarkupJson: () => bad("can't parse reply keyboard markup JSON object"),
  replyMarkupNotObject: () => bad("object expected as reply markup"),
  keyboardNotArrays: () => bad('field "keyboard" must be an Array of Arrays'),
  keyboardButtonInvalid: (detail: string) => bad(`can't parse keyboard button: ${detail}`),
  inlineKeyboardNotArrays: () => bad('field "inline_keyboard" of the InlineKeyboardMarkup must be an Array of Arrays'),
  inlineButtonInvalid: (detail: string) => bad(`can't parse inline keyboard button: ${detail}`),
  replyParametersNotObject: () => bad("object expected as reply parameters"),
  /** TDLib's, for an edit given a reply keyboard, its removal or a forced reply. */
  inlineKeyboardExpected: () => bad("inline keyboard expected"),
  linkPreviewOptionsJson: () => bad("can't parse link preview options JSON object"),
  linkPreviewOptionsNotObject: () => bad("object expected as link preview options"),
  suggestedPostJson: () => bad("can't parse suggested post parameters JSON object"),
  suggestedPostNotObject: () => bad("object expected as suggested post parameters"),
  suggestedPostTonAmount: () => bad("suggested post price must be divisible by 10000000 nanotoncoins"),
  suggestedPostCurrency: () => bad("invalid suggested post price currency specified"),
  /** Client.cpp's own texts, sent as they are (they begin with the prefix). */
  businessChatIdEmpty: () => bad("chat identifier is empty"),
  businessChatIdInvalid: () => bad("chat identifier must be a valid Integer"),
  businessConnectionNotFound: () => bad("business connection not found"),
  /** A td field getter's own text (`Field "x" must be of type Boolean`, `Can't find field "x"`), as the reference prints it. */
  fieldInvalid: (detail: string) => bad(asReference(detail)),
  replyParametersJson: () => bad("can't parse reply parameters JSON object"),
  replyNotFound: () => bad("message to be replied not found"),
  preCheckoutErrorRequired: () => bad('parameter "error_message" is required'),
  queryIdInvalid: () => bad("query is too old and response timeout expired or query ID is invalid"),
  chargeNotFound: () => bad("CHARGE_NOT_FOUND"),
  chargeAlreadyRefunded: () => bad("CHARGE_ALREADY_REFUNDED"),
  subscriptionPeriodInvalid: () => bad("SUBSCRIPTION_PERIOD_INVALID"),
  userNotFound: () => bad("user not found"),
  userIdInvalid: () => bad("invalid user_id specified"),
  invoiceMessageNotFound: () => bad("invoice message not found"),
  /** editUserStarSubscription of a subscription that has expired (its renewal stopped or failed). */
  subscriptionExpired: () => bad("SUBSCRIPTION_EXPIRED"),
  invoiceLinkNotFound: () => bad("invoice link not found"),
  alreadySubscribed: () => bad("the user already has a subscription from this link"),
  starsNotEnough: () => bad("the user does not have enough Stars"),

  // Messages (sendMessage, edits, deleteMessage)
  messageTextEmpty: () => bad("message text is empty"),
  messageTooLong: () => bad("message is too long"),
  textTooLong: () => bad("text is too long"),
  textMustBeNonEmpty: () => bad("text must be non-empty"),
  /** `detail`: get_text_entity's text, e.g. `Unsupported type specified`. */
  entityInvalid: (detail: string) => bad(`can't parse MessageEntity: ${detail}`),
  entityOffsetInvalid: (offset: number) => bad(`receive an entity with incorrect offset ${offset}`),
  entityLengthInvalid: (length: number) => bad(`receive an entity with incorrect length ${length}`),
  chatIdNotSpecified: () => bad("chat identifier is not specified"),
  // Entity parsing (parse_mode), as td words it; offsets are UTF-8 bytes of the text.
  entityUnexpectedEndTag: (offset: number) => entities(`Unexpected end tag at byte offset ${offset}`),
  entityUnclosedEndTag: (offset: number) => entities(`Unclosed end tag at byte offset ${offset}`),
  entityUnmatchedEndTag: (offset: number, expected: string, found: string) =>
    entities(`Unmatched end tag at byte offset ${offset}, expected "</${expected}>", found "</${found}>"`),
  entityUnclosedStartTag: (offset: number) => entities(`Unclosed start tag at byte offset ${offset}`),
  entityUnclosedStartTagNamed: (tag: string, offset: number) =>
    entities(`Unclosed start tag "${tag}" at byte offset ${offset}`),
  entityUnsupportedStartTag: (tag: string, offset: number) =>
    entities(`Unsupported start tag "${tag}" at byte offset ${offset}`),
  entityEmptyAttributeName: (tag: string, offset: number) =>
    entities(`Empty attribute name in the tag "${tag}" at byte offset ${offset}`),
  entityNameTokenEnd: (offset: number) => entities(`Unexpected end of name token at byte offset ${offset}`),
  entitySpanClass: (offset: number) => entities(`Tag "span" must have class "tg-spoiler" at byte offset ${offset}`),
  entityEndTagMissing: (tag: string) => entities(`Can't find end tag corresponding to start tag "${tag}"`),
  entityCharReserved: (char: string) =>
    entities(`Character '${char}' is reserved and must be escaped with the preceding '\\'`),
  entityUrlEnd: (offset: number) => entities(`Can't find end of a URL at byte offset ${offset}`),
  entityKindEnd: (entity: string, offset: number) =>
    entities(`Can't find end of ${entity} entity at byte offset ${offset}`),
  entityEnd: (offset: number) => entities(`Can't find end of the entity starting at byte offset ${offset}`),
  parseModeUnsupported: () => bad("unsupported parse_mode"),
  buttonDataInvalid: () => bad("BUTTON_DATA_INVALID"),
  messageChatTypeUnsupported: () => bad("messages can be sent only to private chats and channels"),
  messageNotModified: () =>
    bad(
      "message is not modified: specified new message content and reply markup are exactly the same as a current content and reply markup of the message",
    ),
  messageToEditNotFound: () => bad("message to edit not found"),
  messageCantBeEdited: () => bad("message can't be edited"),
  noTextToEdit: () => bad("there is no text in the message to edit"),
  messageToDeleteNotFound: () => bad("message to delete not found"),
  messageIdInvalid: () => bad("message identifier is not specified"),
  inlineMessagesUnsupported: () => bad("inline messages are not supported by starpost"),

  // The user's side and scripted faults (platform API)
  platformChatUnknown: (chatId: string) => bad(`chat ${chatId} is not known to this bot`),
  platformFromRequired: () => bad("from is required for a chat that is not private"),
  platformMessageUnknown: (messageId: string) => bad(`message ${messageId} is not in this chat`),
  platformNotBotMessage: (messageId: string) => bad(`message ${messageId} was not sent by the bot`),
  platformButtonUnknown: (data: string) => bad(`message has no button with callback_data "${data}"`),
  platformFromIdNotChat: () => bad("from.id must be the chat id in a private chat"),
  platformIntegerInvalid: (name: string, min: number, max: number) => bad(`${name} must be an integer ${min}-${max}`),
  linkInvalid: () => bad("link must be an invoice link"),
  userTextInvalid: () => bad("text must be a string of 1-4096 characters"),
  platformMessageIdInvalid: () => bad("message_id must be a positive integer"),
  callbackDataInvalid: () => bad("data must be a string"),
  waitAnswerInvalid: (maxMs: number) => bad(`wait_answer_ms must be 0-${maxMs}`),
  userStarsInvalid: () => bad("amount must be an integer 0-1000000000000 or null"),
  faultMethodInvalid: () => bad('method must be a method name or "*"'),
  faultDescriptionInvalid: () => bad("description must be a string of 1-1024 characters"),
  faultEmpty: () => bad("a fault needs error_code, delay_ms or both"),
  faultRetryAfterAlone: () => bad("retry_after goes with error_code 429"),
  faultDescriptionRequired: (errorCode: number) => bad(`description is required for error_code ${errorCode}`),
  faultMethodUnknown: (method: string) => bad(`unknown method "${method}"`),
  tooManyFaults: (max: number) => bad(`a bot holds at most ${max} faults; clear them first`),
  botBlocked: () => new BotApiError({ error_code: 403, description: "Forbidden: bot was blocked by the user" }),
  /** a scripted fault (POST /platform/v1/bots/:botId/faults): code and text are the caller's. */
  injected: (errorCode: number, description: string, retryAfter?: number) =>
    new BotApiError({
      error_code: errorCode,
      description,
      ...(retryAfter !== undefined ? { parameters: { retry_after: retryAfter } } : {}),
    }),
} as const;
