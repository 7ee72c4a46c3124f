import { ok } from "@starpost/shared";
import { loadLastError, loadWebhook } from "@starpost/runtime";
import { loadAllowedUpdates, pendingCount } from "@starpost/update-log";
import type { Outcome } from "../outcomes.ts";
import type { WebhookDeps } from "./types.ts";

/**
 * getWebhookInfo, keys in the official server's order: url, has_custom_certificate,
 * pending_update_count (in-flight updates included: they leave the log only after a 2xx),
 * last_error_date + last_error_message (after an error), max_connections and ip_address (with a
 * webhook; `<unknown>` when no address is known), allowed_updates (when not the default).
 */
export async function getWebhookInfo(
  deps: Pick<WebhookDeps, "redis">,
  botId: string,
): Promise<Outcome<Record<string, unknown>, never>> {
  const { redis } = deps;
  const [config, pending, lastError, allowed] = await Promise.all([
    loadWebhook(redis, botId),
    pendingCount(redis, botId),
    loadLastError(redis, botId),
    loadAllowedUpdates(redis, botId),
  ]);
  const info: Record<string, unknown> = {
    url: config?.url ?? "",
    // An uploaded certificate is accepted and ignored (the spec: checked against the system store),
    // but getWebhookInfo says it came, as the reference's does (Client.cpp at 01a3679, line 5957).
    has_custom_certificate: config?.hasCertificate ?? false,
    pending_update_count: pending,
  };
  if (lastError) {
    info.last_error_date = lastError.date;
    info.last_error_message = lastError.message;
  }
  if (config) {
    info.max_connections = config.maxConnections;
    info.ip_address = config.ipAddress || config.resolvedIp || "<unknown>";
  }
  if (allowed) info.allowed_updates = allowed;
  return ok(info);
}
