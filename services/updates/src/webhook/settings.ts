import { randomBytes } from "node:crypto";
import { channels, keys, ok, parseWebhookUrl, urlHost } from "@starpost/shared";
import { resolveWebhookHost, webhookFields, type WebhookConfig } from "@starpost/runtime";
import { allowedMode } from "@starpost/update-log";
import { updatesScripts, type AddressRefusal } from "../lua/index.ts";
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
  allowedUpdates?: string[] | null,
): Promise<Outcome<true, never>> {
  const { redis } = deps;
  // Pending updates stay for getUpdates unless dropped (even when no webhook was set).
  const removed = await updatesScripts.deleteWebhook(
    redis,
    {
      webhook: keys.webhook(botId),
      status: keys.webhookStatus(botId),
      log: keys.updateLog(botId),
      allowedUpdates: keys.allowedUpdates(botId),
    },
    {
      drop: dropPendingUpdates ? "1" : "0",
      wakeChannel: channels.wake.name(botId),
      message: channels.wake.encode({ kind: "webhook_deleted", botId }),
      allowedMode: allowedMode(allowedUpdates),
      kinds: allowedUpdates ?? [],
    },
  );
  // The registry of webhook bots is global (another slot): updated after the bot's own step, when
  // it removed a webhook. A bot left in it by a crash costs a sweep one look until its next
  // set or delete.
  if (removed) await redis.srem(keys.webhookBotsOf(botId), botId);
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
  if (p.url === "") return deleteWebhook(deps, botId, p.drop_pending_updates, p.allowed_updates);
  const { redis } = deps;

  // The address is judged first (DNS is not Redis); the step applies the verdict after its own
  // checks, in the official server's order: the once-a-second limit, "already set", the address.
  const target = parseWebhookUrl(p.url)!;
  const resolved = await resolveWebhookHost(urlHost(target), deps.allowPrivateNetworks);
  const port = Number(target.port) || (target.protocol === "https:" ? 443 : 80);
  const verdict: "ok" | AddressRefusal =
    resolved.outcome === "reserved"
      ? "reserved"
      : // With private networks allowed (local stacks, tests) a name that does not resolve yet is
        // accepted: delivery reports it in last_error_message instead.
        resolved.outcome === "unresolved" && !deps.allowPrivateNetworks
        ? "unresolved"
        : resolved.outcome === "ok" && (await deps.ownEndpoints.find(resolved.ip, port))
          ? "own_endpoint"
          : "ok";

  const config: WebhookConfig = {
    url: p.url,
    secretToken: p.secret_token,
    maxConnections: p.max_connections,
    ipAddress: p.ip_address,
    hasCertificate: p.has_certificate,
    resolvedIp: resolved.outcome === "ok" ? resolved.ip : "",
    generation: `${Date.now()}-${randomBytes(4).toString("hex")}`,
  };
  // The global registry of webhook bots (another slot) first, so a sweep sees every bot with a
  // webhook even if this process dies right after the bot's own step.
  if (verdict === "ok") await redis.sadd(keys.webhookBotsOf(botId), botId);
  const fields = Object.entries(webhookFields(config)).flat();
  const set = await deps.deliveryQueue.guard(
    botId,
    redis,
    updatesScripts.setWebhook(
      redis,
      {
        webhook: keys.webhook(botId),
        status: keys.webhookStatus(botId),
        allowedUpdates: keys.allowedUpdates(botId),
        log: keys.updateLog(botId),
        pollOwner: keys.pollOwner(botId),
        limit: keys.webhookSetLimit(botId),
      },
      {
        drop: p.drop_pending_updates ? "1" : "0",
        allowedMode: allowedMode(p.allowed_updates),
        wakeChannel: channels.wake.name(botId),
        message: channels.wake.encode({ kind: "webhook", botId }),
        limitMs: SET_INTERVAL_MS,
        // Like the official server: a certificate or drop_pending_updates always sets it again.
        comparable: p.has_certificate || p.drop_pending_updates ? "0" : "1",
        verdict,
        fieldValues: fields.length,
        values: [...fields, ...(p.allowed_updates ?? [])],
      },
    ),
  );

  switch (set.result) {
    case "too_often":
      return { outcome: "set_webhook_too_often" };
    case "unchanged":
      // allowed_updates still changes (stored by the step), the webhook itself does not.
      return ok(true, "Webhook is already set");
    case "reserved":
      return { outcome: "webhook_ip_reserved", ip: resolved.outcome === "reserved" ? resolved.ip : "" };
    case "unresolved":
      return { outcome: "webhook_host_unresolved" };
    case "own_endpoint":
      return { outcome: "webhook_own_endpoint", ip: resolved.outcome === "ok" ? resolved.ip : "", port };
  }
  await deps.deliveryQueue.request(botId, { cause: "webhook_set", ticket: set.ticket });
  deps.logger.info({ botId, maxConnections: config.maxConnections }, "webhook set");
  return ok(true, "Webhook was set");
}
