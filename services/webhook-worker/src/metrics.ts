import type { Registry } from "@starpost/runtime";

/** Backoff doubles from 1 s to 60–120 s; Retry-After may ask for up to an hour. */
const RETRY_BUCKETS = [0.5, 1, 2, 4, 8, 16, 32, 64, 128, 300, 900, 3600];

/** What operators watch: deliveries, failures by kind, expired drops, latency, queue depth. */
export function workerMetrics(registry: Registry) {
  return {
    deliveries: registry.counter(
      "starpost_webhook_deliveries_total",
      "Webhook requests answered, by result (ok = 2xx)",
      ["result"],
    ),
    failures: registry.counter(
      "starpost_webhook_failures_total",
      "Failed webhook requests, by kind (http, connect, timeout, tls, guard, closed) and the error text getWebhookInfo shows",
      ["kind", "error"],
    ),
    dropped: registry.counter(
      "starpost_webhook_dropped_total",
      "Updates dropped because their lifetime ended before delivery",
    ),
    latency: registry.histogram(
      "starpost_webhook_delivery_duration_seconds",
      "Time from sending an update to the webhook's answer",
    ),
    retryDelay: registry.histogram(
      "starpost_webhook_retry_delay_seconds",
      "Delay before a failed update is sent again (backoff or the webhook's Retry-After)",
      [],
      RETRY_BUCKETS,
    ),
    replies: registry.counter("starpost_webhook_reply_methods_total", "Methods run from webhook answers, by result", [
      "result",
    ]),
    drains: registry.counter("starpost_webhook_drains_total", "Drain jobs finished, by reason", ["reason"]),
  };
}
export type WorkerMetrics = ReturnType<typeof workerMetrics>;
