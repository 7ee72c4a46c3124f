export type ServiceName = "gateway" | "invoices" | "updates";

export interface MethodSpec {
  /** the owning service: the gateway forwards the call there, or answers it itself. */
  service: ServiceName;
  /** holds the request open (a long poll, held by the gateway): answered with an empty result when the gateway shuts down. */
  longPoll?: true;
  /** false: a webhook answer may not run it (the official server refuses get*, setWebhook, deleteWebhook, close, logOut there). */
  webhookReply?: false;
}

/**
 * The Bot API surface starpost serves: each method's owning service, by name only. The gateway
 * routes from it; the row that validates and answers a method (`{ params, summary, handler }`)
 * lives in the owning service's method table (its `methods.ts`), which docs/methods.md and the
 * tests enumerate. A new method is one name here plus one row and its handler in the owner.
 */
export const METHODS = {
  getMe: {
    service: "gateway",
    webhookReply: false,
  },
  logOut: {
    service: "gateway",
    webhookReply: false,
  },
  close: { service: "gateway", webhookReply: false },

  getUpdates: {
    service: "gateway",
    longPoll: true,
    webhookReply: false,
  },
  setWebhook: {
    service: "updates",
    webhookReply: false,
  },
  deleteWebhook: {
    service: "updates",
    webhookReply: false,
  },
  getWebhookInfo: {
    service: "updates",
    webhookReply: false,
  },

  sendInvoice: {
    service: "invoices",
  },
  createInvoiceLink: {
    service: "invoices",
  },
  answerPreCheckoutQuery: {
    service: "invoices",
  },
  refundStarPayment: {
    service: "invoices",
  },
  editUserStarSubscription: {
    service: "invoices",
  },
  getStarTransactions: {
    service: "invoices",
    webhookReply: false,
  },
  getMyStarBalance: {
    service: "invoices",
    webhookReply: false,
  },
  getAvailableGifts: { service: "invoices", webhookReply: false },

  sendMessage: {
    service: "invoices",
  },
  editMessageText: {
    service: "invoices",
  },
  editMessageReplyMarkup: {
    service: "invoices",
  },
  deleteMessage: {
    service: "invoices",
  },
  answerCallbackQuery: {
    service: "invoices",
  },
} as const satisfies Record<string, MethodSpec>;

export type MethodName = keyof typeof METHODS;
/** The methods a service owns. */
export type MethodOf<S extends ServiceName> = {
  [M in MethodName]: (typeof METHODS)[M]["service"] extends S ? M : never;
}[MethodName];

const byLowerName = new Map(Object.keys(METHODS).map((name) => [name.toLowerCase(), name as MethodName]));

/** Method names are case-insensitive on the wire (`setWebHook` works). */
export function findMethod(name: string): MethodName | undefined {
  return byLowerName.get(name.toLowerCase());
}
