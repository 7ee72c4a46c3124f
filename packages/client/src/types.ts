/**
 * The Bot API objects a test reads, typed as far as tests look at them. Written out here rather
 * than imported from the services' packages: the client has no dependencies, so a bot's own
 * repository can use it without starpost's server code.
 */

export interface User {
  id: number;
  is_bot: boolean;
  first_name: string;
  last_name?: string;
  username?: string;
  language_code?: string;
}

export interface Chat {
  id: number;
  type: "private" | "group" | "supergroup" | "channel";
  title?: string;
  username?: string;
  first_name?: string;
  last_name?: string;
}

export interface MessageEntity {
  type: string;
  offset: number;
  length: number;
  url?: string;
  language?: string;
}

export interface InlineKeyboardButton {
  text: string;
  callback_data?: string;
  url?: string;
  pay?: boolean;
  [other: string]: unknown;
}

export interface Message {
  message_id: number;
  from?: User;
  sender_chat?: Chat;
  chat: Chat;
  date: number;
  edit_date?: number;
  text?: string;
  entities?: MessageEntity[];
  invoice?: { title: string; description: string; start_parameter: string; currency: string; total_amount: number };
  successful_payment?: {
    currency: string;
    total_amount: number;
    invoice_payload: string;
    telegram_payment_charge_id: string;
  };
  refunded_payment?: {
    currency: string;
    total_amount: number;
    invoice_payload: string;
    telegram_payment_charge_id: string;
  };
  reply_markup?: { inline_keyboard: InlineKeyboardButton[][] };
  [other: string]: unknown;
}

export interface CallbackAnswer {
  text: string;
  show_alert: boolean;
  url: string;
}

export type PaymentResult =
  | { status: "paid"; telegram_payment_charge_id: string }
  | { status: "declined"; error_message: string }
  /** the bot approved, but the user lacked the Stars or already had a subscription from the link. */
  | { status: "failed"; error_message: string }
  | { status: "expired" };

/** What one clock advance did: the bot's clock now (Unix s), renewals charged, subscriptions ended. */
export interface ClockAdvance {
  date: number;
  renewals: number;
  ended: number;
}

export interface FaultSpec {
  /** with method "delivery": the next `times` deliveries reach the bot twice. */
  duplicate?: true;
  error_code?: number;
  description?: string;
  retry_after?: number;
  delay_ms?: number;
  times?: number;
}

export interface Fault extends FaultSpec {
  id: number;
  method: string;
  times: number;
}

export interface RequestLogEntry {
  date: number;
  method: string;
  params: Record<string, unknown>;
  status: number;
  ok: boolean;
  error_code?: number;
  description?: string;
  duration_ms: number;
}

/** An Update without its update_id (the server assigns it): one kind key, e.g. `{ message: {...} }`. */
export type Update = Record<string, Record<string, unknown>>;

/** A bot as the platform lists it (no token). */
export interface BotSummary {
  id: number;
  username: string;
  first_name: string;
  tag?: string;
}

/** A bot just registered: its User, its token and its tag. */
export interface CreatedBot extends BotSummary {
  is_bot: true;
  token: string;
}

export interface StarAmount {
  amount: number;
  nanostar_amount?: number;
}

export interface StarTransaction {
  id: string;
  amount: number;
  nanostar_amount?: number;
  date: number;
  source?: Record<string, unknown>;
  receiver?: Record<string, unknown>;
}

/** The bot's Star balance and a page of its ledger (getMyStarBalance and getStarTransactions). */
export interface StarsView {
  balance: StarAmount;
  transactions: StarTransaction[];
}

/** The bot's webhook as its getWebhookInfo shows it (the URL's password masked), with the next retry. */
export interface WebhookState {
  url: string;
  has_custom_certificate: boolean;
  pending_update_count: number;
  ip_address?: string;
  last_error_date?: number;
  last_error_message?: string;
  last_synchronization_error_date?: number;
  max_connections?: number;
  allowed_updates?: string[];
  /** when the next attempt of a failing delivery is due (Unix s). */
  next_retry_date?: number;
}

/** What the activity log records (ACTIVITY_KINDS). */
export type ActivityKind =
  "call" | "update" | "attempt" | "confirm" | "drop" | "payment" | "refund" | "renewal" | "replay";

/**
 * An entry of a bot's activity log: its position (pass it as `after`), when (`time`, Unix ms), its kind,
 * and the kind's fields: a call's `method, params, status, ok, duration_ms`; an update's
 * `update_id, type, update`; an attempt's `update_ids, status?, error?, duration_ms`; a confirm's
 * `by` ("offset" with `offset, count`, or "webhook" with `update_ids`); a drop's `update_ids` or
 * `update_id` and `reason`; a payment's `status` ("paid", "declined", "failed"), `user_id, amount`
 * and `telegram_payment_charge_id`; a refund's and a renewal's charge, user and amount; a replay's
 * `update_id` and `via`.
 */
export interface ActivityEntry {
  /** the entry's place in the bot's log, counted from 1. */
  position: number;
  time: number;
  kind: ActivityKind;
  [field: string]: unknown;
}

/** Which entries a fence wait or check looks for: a predicate, or fields an entry must have (deeply). */
export type ActivityFilter = ((entry: ActivityEntry) => boolean) | Partial<ActivityEntry>;

/** A Star subscription as the platform shows it (dates on the bot's clock, Unix s). */
export interface Subscription {
  /** the first charge's id. */
  id: string;
  link: string;
  user_id: number;
  amount: number;
  period: number;
  state: "active" | "expired" | "renewal_failed";
  expiration_date: number;
  renewals: number;
  canceled: boolean;
}

/** A user the bot has met, with their Stars (null: unlimited). */
export interface UserStars extends User {
  stars: number | null;
}
