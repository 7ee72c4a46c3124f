import { rowsOf, type MethodTable } from "@starpost/http";
import { answer } from "../outcomes.ts";
import { DeleteWebhookParams, GetWebhookInfoParams, SetWebhookParams } from "../params/webhook.ts";
import { getWebhookInfo } from "./info.ts";
import { deleteWebhook, setWebhook } from "./settings.ts";
import type { WebhookDeps } from "./types.ts";

const row = rowsOf<WebhookDeps>();

/** The Bot API methods this service owns: setWebhook, deleteWebhook, getWebhookInfo. */
export const WEBHOOK_METHODS = {
  setWebhook: row({
    params: SetWebhookParams,
    summary:
      "http or https on any port, secret_token, max_connections 1..100, allowed_updates, drop_pending_updates, ip_address; SSRF guard (docs/webhooks.md)",
    handler: async (deps, { botId, params }) => answer(await setWebhook(deps, botId, params)),
  }),
  deleteWebhook: row({
    params: DeleteWebhookParams,
    summary: "removes the webhook so getUpdates works again; drop_pending_updates",
    handler: async (deps, { botId, params }) =>
      answer(await deleteWebhook(deps, botId, params.drop_pending_updates, params.allowed_updates)),
  }),
  getWebhookInfo: row({
    params: GetWebhookInfoParams,
    summary: "url, pending_update_count, last error, max_connections, ip_address, allowed_updates",
    handler: async (deps, { botId }) => answer(await getWebhookInfo(deps, botId)),
  }),
} satisfies MethodTable<"updates", WebhookDeps>;
