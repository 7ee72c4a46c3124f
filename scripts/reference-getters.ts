/**
 * How the reference reads each parameter starpost declares: the getter and its line in
 * telegram-bot-api/Client.cpp at 01a3679 (May 2026), the arbiter of issue 27. scripts/docs.ts
 * renders it beside starpost's reader (from the schema itself) into docs/request-front.md, and
 * packages/shared/test/generated-docs.test.ts fails when a declared parameter has no row here or a
 * row names a parameter no schema declares.
 */
type Getter = readonly [getter: string, line: string];

const product: Record<string, Getter> = {
  title: ["get_required_string_arg", "11970"],
  description: ["get_required_string_arg", "11971"],
  payload: ["get_required_string_arg; check_utf8", "11972"],
  currency: ["get_required_string_arg", "11979"],
  prices: ["get_required_string_arg; json_decode; get_labeled_price_parts", "11981, 9848"],
  provider_token: ["arg", "11976"],
  max_tip_amount: ["to_integer_safe<int64>", "11994"],
  suggested_tip_amounts: ["json_decode; get_suggested_tip_amounts", "12001, 9885"],
  provider_data: ["arg", "11977"],
  photo_url: ["arg", "12012"],
  photo_size: ["get_integer_arg(0, 0, 10^9)", "12013"],
  photo_width: ["get_integer_arg(0, 0, 10000)", "12014"],
  photo_height: ["get_integer_arg(0, 0, 10000)", "12015"],
  need_name: ["to_bool", "12017"],
  need_phone_number: ["to_bool", "12018"],
  need_email: ["to_bool", "12019"],
  need_shipping_address: ["to_bool", "12020"],
  send_phone_number_to_provider: ["to_bool", "12021"],
  send_email_to_provider: ["to_bool", "12022"],
  is_flexible: ["to_bool", "12023"],
};

/** do_send_message (line 16117) and get_reply_parameters. */
const sending: Record<string, Getter> = {
  chat_id: ["arg; check_chat (to_integer<int64>)", "16119, 8210"],
  reply_markup: ["get_reply_markup; get_inline_keyboard_button", "16136, 9697, 9574"],
  reply_parameters: ["has_arg; json_decode; get_reply_parameters", "16122, 9411"],
  reply_to_message_id: ["get_message_id (without reply_parameters)", "9391"],
  allow_sending_without_reply: ["to_bool (without reply_parameters)", "9392"],
  disable_notification: ["to_bool", "16127"],
  protect_content: ["to_bool", "16128"],
  message_thread_id: ["get_forum_topic_id", "16120"],
  direct_messages_topic_id: ["to_integer<int64>", "16131"],
  allow_paid_broadcast: ["to_bool", "16129"],
  message_effect_id: ["to_integer<int64>", "16130"],
  suggested_post_parameters: ["get_input_suggested_post_info", "16132, 9831"],
  business_connection_id: ["arg; check_business_connection_chat_id", "16121, 8319"],
};

/** get_input_message_text (line 11391) and get_formatted_text (11307). */
const text: Record<string, Getter> = {
  text: ["arg; get_formatted_text", "11393, 11309"],
  parse_mode: ["arg, lower-cased; parseTextEntities", "11394, 11313"],
  entities: ["get_input_entities; get_text_entity", "11169, 11290"],
};

const editTarget: Record<string, Getter> = {
  chat_id: ["arg; check_message; check_chat", "13506, 8413"],
  message_id: ["get_message_id", "13507, 12389"],
  inline_message_id: ["get_inline_message_id", "13511, 12443"],
};

export const REFERENCE_GETTERS: Record<string, Record<string, Getter>> = {
  getMe: {},
  logOut: {},
  close: {},
  getUpdates: {
    offset: ["get_integer_arg(0); a negative one clears the queue", "15707, 16326"],
    limit: ["get_integer_arg(100, 1, 100)", "15708"],
    timeout: ["get_integer_arg(0, 0, 50)", "15709"],
    allowed_updates: ["get_allowed_update_types", "15711, 16889"],
  },
  setWebhook: {
    url: ["arg; td::parse_url", "15729, 16011"],
    secret_token: ["arg; length, then characters", "15750, 16018"],
    max_connections: ["get_integer_arg(40, 1, 100)", "15747, 15988"],
    ip_address: ["arg", "15748"],
    drop_pending_updates: ["to_bool", "15751"],
    allowed_updates: ["get_allowed_update_types", "16089, 16889"],
    certificate: ["get_webhook_certificate (a file part, or attach://)", "15745, 15976"],
  },
  deleteWebhook: {
    drop_pending_updates: ["to_bool", "15751"],
    allowed_updates: ["get_allowed_update_types, when no webhook was set", "15762, 16889"],
  },
  getWebhookInfo: {},
  sendInvoice: { ...product, ...sending, start_parameter: ["arg", "11978"] },
  createInvoiceLink: {
    ...product,
    business_connection_id: ["arg; check_business_connection", "13964"],
    subscription_period: ["get_integer_arg(0, 0)", "12034"],
  },
  answerPreCheckoutQuery: {
    pre_checkout_query_id: ["to_integer<int64>", "14348"],
    ok: ["to_bool", "14349"],
    error_message: ["get_required_string_arg, when not ok", "14352"],
  },
  refundStarPayment: {
    user_id: ["get_user_id", "13997, 12451"],
    telegram_payment_charge_id: ["get_required_string_arg", "13998"],
  },
  editUserStarSubscription: {
    user_id: ["get_user_id", "14009, 12451"],
    telegram_payment_charge_id: ["arg", "14010"],
    is_canceled: ["to_bool", "14011"],
  },
  getStarTransactions: {
    offset: ["get_integer_arg(0, 0)", "13988"],
    limit: ["get_integer_arg(100, 1, 100)", "13989"],
  },
  getMyStarBalance: {},
  getAvailableGifts: {},
  sendMessage: {
    ...sending,
    ...text,
    link_preview_options: ["get_link_preview_options", "11362"],
    disable_web_page_preview: ["to_bool, without link_preview_options", "11364"],
  },
  editMessageText: {
    ...editTarget,
    ...text,
    reply_markup: ["get_reply_markup", "13508, 9697"],
    business_connection_id: ["arg; check_business_connection_chat_id", "13505, 8319"],
    link_preview_options: ["get_link_preview_options", "11362"],
    disable_web_page_preview: ["to_bool, without link_preview_options", "11364"],
  },
  editMessageReplyMarkup: {
    chat_id: ["arg; check_message; check_chat", "13750, 8413"],
    message_id: ["get_message_id", "13751, 12389"],
    inline_message_id: ["get_inline_message_id", "13755, 12443"],
    reply_markup: ["get_reply_markup", "13752, 9697"],
    business_connection_id: ["arg; check_business_connection_chat_id", "13749, 8319"],
  },
  deleteMessage: {
    chat_id: ["arg; its own emptiness check", "13793, 13796"],
    message_id: ["get_message_id; its own zero check", "13794, 13800"],
  },
  answerCallbackQuery: {
    callback_query_id: ["to_integer<int64>", "14320"],
    text: ["arg", "14321"],
    show_alert: ["to_bool", "14322"],
    url: ["arg", "14323"],
    cache_time: ["get_integer_arg(0, 0, 2592000)", "14324"],
  },
};
