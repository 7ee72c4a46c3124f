import type { MethodHandlers } from "@starpost/shared";
import { answer } from "../outcomes.ts";
import { getWebhookInfo } from "./info.ts";
import { deleteWebhook, setWebhook } from "./settings.ts";
import type { WebhookDeps } from "./types.ts";

/** setWebhook, deleteWebhook, getWebhookInfo. */
export function webhookHandlers(deps: WebhookDeps): MethodHandlers {
  return {
    setWebhook: async ({ botId, params }) => answer(await setWebhook(deps, botId, params)),
    deleteWebhook: async ({ botId, params }) => answer(await deleteWebhook(deps, botId, params.drop_pending_updates)),
    getWebhookInfo: async ({ botId }) => answer(await getWebhookInfo(deps, botId)),
  };
}
