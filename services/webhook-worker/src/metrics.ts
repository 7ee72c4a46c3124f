import type { Registry } from "@starpost/shared";

/** What operators watch: deliveries, failures by kind, expired drops, latency, queue depth. */
export function workerMetrics(registry: Registry) {
  return {
    deliveries: registry.counter("starpost_webhook_deliveries_total", "Webhook requests answered, by result (ok = 2xx)"),
    failures: registry.counter("starpost_webhook_failures_total", "Failed webhook requests, by kind (http, connect, timeout, tls, guard, closed)"),
    dropped: registry.counter("starpost_webhook_dropped_total", "Updates dropped because their lifetime ended before delivery"),
    latency: registry.histogram("starpost_webhook_delivery_duration_seconds", "Time from sending an update to the webhook's answer"),
    replies: registry.counter("starpost_webhook_reply_methods_total", "Methods run from webhook answers, by result"),
    drains: registry.counter("starpost_webhook_drains_total", "Drain jobs finished, by reason"),
  };
}
export type WorkerMetrics = ReturnType<typeof workerMetrics>;
