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
