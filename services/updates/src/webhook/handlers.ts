import type { MethodHandlers } from "@starpost/shared";
import { getWebhookInfo } from "./info.ts";
import { deleteWebhook, setWebhook } from "./settings.ts";
import type { WebhookDeps } from "./types.ts";

/** setWebhook, deleteWebhook, getWebhookInfo. */
export function webhookHandlers(deps: WebhookDeps): MethodHandlers {
  return {
    setWebhook: ({ botId, params }) => setWebhook(deps, botId, params),
    deleteWebhook: ({ botId, params }) => deleteWebhook(deps, botId, params.drop_pending_updates),
    getWebhookInfo: ({ botId }) => getWebhookInfo(deps, botId),
  };
}
