import type { Redis } from "ioredis";
import type { DeliveryQueues } from "@starpost/update-log";
import type { AnswerWaiters } from "./answer-waiters.ts";

/** What the invoice domain needs, built once by app.ts. */
export interface InvoiceDomain {
  redis: Redis;
  deliveryQueue: DeliveryQueues;
  waiters: AnswerWaiters;
  /** history reads waiting for the bot's next message in a chat (`<bot id>:<chat id>`). */
  chatWaiters: AnswerWaiters;
  /** button presses waiting for the bot's answerCallbackQuery (`<bot id>:<query id>`). */
  callbackWaiters: AnswerWaiters;
  /** how long a payment waits for answerPreCheckoutQuery (10 s, as in Telegram). */
  answerTimeoutMs: number;
  /** counts payments by final status. */
  onPayment: (status: string) => void;
}
