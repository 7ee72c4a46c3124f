import type { Registry } from "@starpost/runtime";

/** getUpdates' metrics; the waiting gauge is read from the hub at scrape time. */
export function pollingMetrics(registry: Registry, waiting: () => number) {
  registry.gauge("starpost_polls_waiting", "getUpdates requests held open by this process", waiting);
  return {
    answered: registry.counter("starpost_get_updates_total", "getUpdates answers, by how they ended", ["end"]),
    conflicts: registry.counter("starpost_poll_conflicts_total", "getUpdates 409 answers, by reason", ["reason"]),
    waited: registry.histogram(
      "starpost_poll_wait_seconds",
      "How long a getUpdates call was held before its answer, by how it ended",
      ["end"],
    ),
    wakeups: registry.counter("starpost_poll_wakeups_total", "wake messages received for bots with a waiting poll"),
  };
}
export type PollingMetrics = ReturnType<typeof pollingMetrics>;
