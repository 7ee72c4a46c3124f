import type { MethodHandlers } from "@starpost/shared";
import type { WebhookDeps } from "./types.ts";

/** setWebhook, deleteWebhook, getWebhookInfo. */
export function webhookHandlers(_deps: WebhookDeps): MethodHandlers {
  return {};
}
