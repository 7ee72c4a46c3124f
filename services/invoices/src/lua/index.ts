import type { Redis } from "ioredis";
import { defineLuaCommands } from "@starpost/shared";

/** The invoices service's Lua commands (only this service moves money), defined once per client. */
const SCRIPTS = {
  spSendInvoice: { file: "send-invoice.lua", keys: 5 },
  spRecordPreCheckout: { file: "record-pre-checkout.lua", keys: 7 },
  spAnswerPreCheckout: { file: "answer-pre-checkout.lua", keys: 15 },
  spSettlePreCheckout: { file: "settle-pre-checkout.lua", keys: 1 },
  spRefundStarPayment: { file: "refund-star-payment.lua", keys: 12 },
  spRenewSubscription: { file: "renew-subscription.lua", keys: 14 },
  spEditSubscription: { file: "edit-subscription.lua", keys: 2 },
  spReplaceMessage: { file: "replace-message.lua", keys: 1 },
} as const;

type Arg = string | number;

declare module "ioredis" {
  interface RedisCommander<Context> {
    spSendInvoice(...args: Arg[]): Promise<string[]>;
    spRecordPreCheckout(...args: Arg[]): Promise<[string, number | string, number | string]>;
    spAnswerPreCheckout(...args: Arg[]): Promise<[string, number?]>;
    spSettlePreCheckout(...args: Arg[]): Promise<[string, string, string]>;
    spRefundStarPayment(...args: Arg[]): Promise<[string, number?]>;
    spReplaceMessage(...args: Arg[]): Promise<number>;
    spRenewSubscription(...args: Arg[]): Promise<[string, (number | string)?]>;
    spEditSubscription(...args: Arg[]): Promise<string>;
  }
}

export function defineInvoiceScripts(client: Redis): void {
  defineLuaCommands(client, SCRIPTS, import.meta.url);
}
