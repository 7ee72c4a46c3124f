import type { Redis } from "ioredis";
import { keys } from "@starpost/shared";

/**
 * A bot's webhook as stored in `keys.webhook(botId)`: written by setWebhook (updates service),
 * read by getWebhookInfo and by the delivery workers.
 */
export interface WebhookConfig {
  url: string;
  secretToken: string;
  maxConnections: number;
  /** the ip_address parameter as given ("" when none); validated, shown, not used. */
  ipAddress: string;
  /** a certificate file came with setWebhook (accepted and ignored; getWebhookInfo says it came). */
  hasCertificate: boolean;
  /** the address the URL's host resolved to at setWebhook ("" when unknown). */
  resolvedIp: string;
  /** changes on every successful setWebhook: a running drain notices it and restarts. */
  generation: string;
}

export const DEFAULT_MAX_CONNECTIONS = 40;

export async function loadWebhook(redis: Redis, botId: string): Promise<WebhookConfig | undefined> {
  return webhookFromHash(await redis.hgetall(keys.webhook(botId)));
}

/** The webhook of a `keys.webhook` hash as read; undefined when there is none. */
export function webhookFromHash(h: Record<string, string>): WebhookConfig | undefined {
  if (!h.url) return undefined;
  return {
    url: h.url,
    secretToken: h.secret_token ?? "",
    maxConnections: Number(h.max_connections ?? DEFAULT_MAX_CONNECTIONS),
    ipAddress: h.ip_address ?? "",
    hasCertificate: h.certificate === "1",
    resolvedIp: h.resolved_ip ?? "",
    generation: h.generation ?? "",
  };
}

export function webhookFields(c: WebhookConfig): Record<string, string> {
  return {
    url: c.url,
    secret_token: c.secretToken,
    max_connections: String(c.maxConnections),
    ip_address: c.ipAddress,
    certificate: c.hasCertificate ? "1" : "0",
    resolved_ip: c.resolvedIp,
    generation: c.generation,
  };
}

/** Fields of `keys.webhookStatus(botId)`. */
export const STATUS = {
  lastErrorDate: "last_error_date",
  lastErrorMessage: "last_error_message",
  /** "1" once a delivery succeeded, "0" after a failure: until a success, one connection at a time. */
  lastOk: "last_ok",
  /** prefix of per-update retry state fields: `r:<update_id>` -> "<fails>:<delay s>:<wakeup ms>". */
  retryPrefix: "r:",
  /** the retry timer holds the bot's next attempt: its due time (ms), or "run" while it runs. */
  retryAt: "retry_at",
} as const;

/** The last delivery error, if any (getWebhookInfo). */
export async function loadLastError(
  redis: Redis,
  botId: string,
): Promise<{ date: number; message: string } | undefined> {
  const [date, message] = await redis.hmget(keys.webhookStatus(botId), STATUS.lastErrorDate, STATUS.lastErrorMessage);
  return date ? { date: Number(date), message: message ?? "" } : undefined;
}
