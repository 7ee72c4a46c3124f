import type { Registry } from "@starpost/runtime";

/** Backoff doubles from 1 s to 60–120 s; Retry-After may ask for up to an hour. */
const RETRY_BUCKETS = [0.5, 1, 2, 4, 8, 16, 32, 64, 128, 300, 900, 3600];

/**
 * Failure kinds whose `last_error_message` is one of a fixed few texts ("Connection refused",
 * "Wrong response from the webhook: 502 Bad Gateway"…): those texts label the failures counter.
 * The others can name an address ("IP address 10.0.0.1 is reserved"), a certificate's hosts or an
 * exception's text, a series per target: they are labelled by their kind alone.
 */
const FIXED_TEXT_KINDS = new Set(["http", "connect", "timeout", "closed"]);

/** The failures counter's labels for a failed attempt. */
export function failureLabels(kind: string, error: string): { kind: string; error: string } {
  return { kind, error: FIXED_TEXT_KINDS.has(kind) ? error.slice(0, 100) : kind };
}

/** What operators watch: deliveries, failures by kind, expired drops, latency, queue depth. */
export function workerMetrics(registry: Registry) {
  return {
    deliveries: registry.counter(
      "starpost_webhook_deliveries_total",
      "Webhook delivery attempts, by result: ok (2xx) or the failure's kind (http, connect, timeout, tls, guard, closed, other)",
      ["result"],
    ),
    failures: registry.counter(
      "starpost_webhook_failures_total",
      "Failed webhook requests, by kind (http, connect, timeout, tls, guard, closed, other) and the error text getWebhookInfo shows (the kind's name where that text names an address or a certificate)",
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
    replies: registry.counter(
      "starpost_webhook_reply_methods_total",
      "Methods run from webhook answers, by result (too_long, no_memory: the answer was ignored, its method not run)",
      ["result"],
    ),
    drains: registry.counter("starpost_webhook_drains_total", "Drain jobs finished, by reason", ["reason"]),
  };
}
export type WorkerMetrics = ReturnType<typeof workerMetrics>;
