import { randomBytes } from "node:crypto";
import { channels, keys, ok, parseWebhookUrl, urlHost } from "@starpost/shared";
import { loadWebhook, resolveWebhookHost, webhookFields, type WebhookConfig } from "@starpost/runtime";
import { saveAllowedUpdates } from "@starpost/update-log";
import { updatesScripts } from "../lua/index.ts";
import type { Outcome } from "../outcomes.ts";
import type { WebhookDeps } from "./types.ts";
import type { SetWebhookParams } from "../params/webhook.ts";

/** setWebhook with a URL more than once a second per bot gets 429, as in the official server. */
const SET_INTERVAL_MS = 1000;

/** deleteWebhook, and setWebhook with an empty url. */
export async function deleteWebhook(
  deps: WebhookDeps,
  botId: string,
  dropPendingUpdates: boolean,
): Promise<Outcome<true, never>> {
  const { redis } = deps;
  // Pending updates stay for getUpdates unless dropped (even when no webhook was set).
  const removed = await updatesScripts.deleteWebhook(
    redis,
    { webhook: keys.webhook(botId), status: keys.webhookStatus(botId), log: keys.updateLog(botId) },
    {
      drop: dropPendingUpdates ? "1" : "0",
      wakeChannel: channels.wake.name(botId),
      message: channels.wake.encode({ kind: "webhook_deleted", botId }),
    },
  );
  // The registry of webhook bots is global (another slot): updated after the bot's own step. A
  // bot left in it by a crash costs the reconciler one empty drain per pass until its next set/delete.
  await redis.srem(keys.webhookBotsOf(botId), botId);
  if (removed) deps.logger.info({ botId }, "webhook deleted");
  return ok(true, removed ? "Webhook was deleted" : "Webhook is already deleted");
}

export async function setWebhook(
  deps: WebhookDeps,
  botId: string,
  p: SetWebhookParams,
): Promise<
  Outcome<
    true,
    | { outcome: "set_webhook_too_often" | "webhook_host_unresolved" }
    | { outcome: "webhook_ip_reserved"; ip: string }
    | { outcome: "webhook_own_endpoint"; ip: string; port: number }
  >
> {
  if (p.url === "") return deleteWebhook(deps, botId, p.drop_pending_updates);
  const { redis } = deps;

  const allowed = await redis.set(keys.webhookSetLimit(botId), "1", "PX", SET_INTERVAL_MS, "NX");
  if (allowed === null) return { outcome: "set_webhook_too_often" };

  const current = await loadWebhook(redis, botId);
  const unchanged =
    current !== undefined &&
    current.url === p.url &&
    current.secretToken === p.secret_token &&
    current.maxConnections === p.max_connections &&
    current.ipAddress === p.ip_address &&
    !p.has_certificate &&
    !p.drop_pending_updates;
  if (unchanged) {
    // Like the official server: allowed_updates still changes, the webhook itself does not.
    if (p.allowed_updates !== undefined) await saveAllowedUpdates(redis, botId, p.allowed_updates);
    return ok(true, "Webhook is already set");
  }

  const target = parseWebhookUrl(p.url)!;
  const resolved = await resolveWebhookHost(urlHost(target), deps.allowPrivateNetworks);
  if (resolved.outcome === "reserved") return { outcome: "webhook_ip_reserved", ip: resolved.ip };
  // With private networks allowed (local stacks, tests) a name that does not resolve yet is
  // accepted: delivery reports it in last_error_message instead.
  if (resolved.outcome === "unresolved" && !deps.allowPrivateNetworks) return { outcome: "webhook_host_unresolved" };
  if (resolved.outcome === "ok") {
    const port = Number(target.port) || (target.protocol === "https:" ? 443 : 80);
    if (await deps.ownEndpoints.find(resolved.ip, port)) {
      return { outcome: "webhook_own_endpoint", ip: resolved.ip, port };
    }
  }

  const config: WebhookConfig = {
    url: p.url,
    secretToken: p.secret_token,
    maxConnections: p.max_connections,
    ipAddress: p.ip_address,
    resolvedIp: resolved.outcome === "ok" ? resolved.ip : "",
    generation: `${Date.now()}-${randomBytes(4).toString("hex")}`,
  };
  // The global registry of webhook bots (another slot) first, so the reconciler sees every bot
  // with a webhook even if this process dies right after the bot's own step.
  await redis.sadd(keys.webhookBotsOf(botId), botId);
  const fields = Object.entries(webhookFields(config)).flat();
  const pending = await updatesScripts.setWebhook(
    redis,
    {
      webhook: keys.webhook(botId),
      status: keys.webhookStatus(botId),
      allowedUpdates: keys.allowedUpdates(botId),
      log: keys.updateLog(botId),
      pollOwner: keys.pollOwner(botId),
    },
    {
      drop: p.drop_pending_updates ? "1" : "0",
      allowedMode: p.allowed_updates === undefined ? "keep" : p.allowed_updates === null ? "default" : "set",
      wakeChannel: channels.wake.name(botId),
      message: channels.wake.encode({ kind: "webhook", botId }),
      fieldValues: fields.length,
      values: [...fields, ...(p.allowed_updates ?? [])],
    },
  );
  await deps.deliveryQueue.request(botId, { cause: "webhook_set", pending });
  deps.logger.info({ botId, maxConnections: config.maxConnections }, "webhook set");
  return ok(true, "Webhook was set");
}
