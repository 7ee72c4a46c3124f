import type { Redis } from "ioredis";
import { keys } from "@starpost/shared";
import { loadWebhook, webhookFromHash, type Logger, type WebhookConfig } from "@starpost/runtime";
import {
  confirmUpdates,
  decodeEntry,
  fieldsOf,
  readEntries,
  type DrainEpoch,
  type DrainFirst,
  type LogEntry,
} from "@starpost/update-log";
import { FRESH, nextRetry, type RetryState } from "../delivery/backoff.ts";
import type { DeliveryResult, Target } from "../delivery/sender.ts";
import { failureLabels, type WorkerMetrics } from "../metrics.ts";
import { recordFailure, recordReplyIgnored, recordSuccess, statusFromHash } from "./status.ts";
import { workerScripts } from "../lua/index.ts";
import type { WebhookChanges } from "./webhook-changes.ts";

export interface DrainDeps {
  redis: Redis;
  logger: Logger;
  metrics: WorkerMetrics;
  deliver(target: Target, body: string, signal: AbortSignal): Promise<DeliveryResult>;
  /** a 2xx answer carried `{"method": ...}`: run it for the bot; settles when the call has. */
  onReply(botId: string, reply: Record<string, unknown>): Promise<void>;
  backoffScale: number;
  /** the bot's wake channel heard by this process: appends, setWebhook, deleteWebhook. */
  changes: Pick<WebhookChanges, "watch">;
  /**
   * true when this drain's queue shard has used half of this process's slots for it: a drain
   * waiting for a retry then gives its slot up (failing bots never starve healthy ones).
   */
  crowded(): boolean;
  /** the safety re-read of the webhook and the log while a drain runs, in case a message was lost (ms). */
  recheckMs: number;
  /**
   * Called every `slowMs` while an attempt of this drain is in flight longer than that (the
   * drain's webhook generation): true once the drain has been handed to the retry timer's slots
   * (the hand-over done), and nothing more is asked; false while it is not (not asked for, under
   * way, or refused: asked again). Absent for the timer's own runs.
   */
  slow?: { ms: number; onSlow(generation: string): boolean };
}

/**
 * Why a drain ended. "backoff": it waits for a retry due at `retryAt` (its webhook's
 * `generation`); "held": a drain job found the bot held by the retry timer (`held`, its
 * `retry_at`); "stale": a retry run found the timer no longer holds the bot; "handed": (a job's
 * only) its drain was slow on a crowded shard and runs on in the retry timer's slots.
 */
export type DrainOutcome =
  | { reason: "empty" | "stopped" | "no_webhook" | "changed" | "stale" | "handed" }
  | { reason: "backoff"; retryAt: number; generation: string }
  | { reason: "held"; held: string };

/**
 * A drain job (its epoch's ticket, and what it carries when it may start without reading), or
 * the retry timer's run of a bot it holds (see open-drain.lua).
 */
export type DrainStart = { mode: "job"; ticket: string; first?: DrainFirst } | { mode: "retry" };

/** Updates read from the log at once; more are read when fewer than half remain. */
const READ_BATCH = 500;
const BUFFER_LOW = 1000;
/**
 * A drain waits for a retry due within this time while its queue has slots to spare; a later
 * retry, or a crowded queue, ends it (freeing the slot for other bots until the retry is due).
 */
const HOLD_MS = 10_000;

/**
 * Drains one bot's log to its webhook. Each queue key (a chat, a user) has strictly one request
 * in flight, in update_id order; different queues run in parallel up to max_connections, or one
 * at a time until a delivery has succeeded. An update leaves the log only after a 2xx, so a
 * drain killed at any point loses nothing (at least once). One instance runs per bot at a time:
 * the BullMQ job id is per bot, and a bot the retry timer holds is run by the timer alone.
 */
export class BotDrain {
  private config!: WebhookConfig;
  private okSeen = false;
  private retries = new Map<number, RetryState>();
  /** unsent updates per queue key, in id order (Map keeps first-seen order: round robin). */
  private readonly queues = new Map<string, LogEntry[]>();
  private buffered = 0;
  private lastReadId = 0;
  private readonly inflight = new Map<string, AbortController>();
  private wake: (() => void) | undefined;
  private signaled = false;
  /** a change of the webhook was announced: re-read it before sending more. */
  private changed = false;
  /** the log grew since the last read (or the first read is still to come). */
  private grown = true;
  /** the last read filled its batch: more is there to read. */
  private more = false;
  private failure: unknown;
  /** handed to the retry timer's slots (`slow.onSlow`): nothing more to ask. */
  private handed = false;
  /** the drain epoch this drain owns (drain-epoch.lua). */
  private ticket = "";
  /** a step closed the epoch (the log is empty): the drain ends, sending nothing more. */
  private closed = false;
  /** a step found the webhook or the epoch changed: the drain ends, its updates stay pending. */
  private superseded = false;

  constructor(
    private readonly deps: DrainDeps,
    private readonly botId: string,
    private readonly start: DrainStart,
  ) {}

  async run(stop: AbortSignal): Promise<DrainOutcome> {
    // Subscribed before the first read: an append or a change after that read is heard.
    const watch = this.deps.changes.watch(this.botId, (m) => {
      if (m?.kind !== "grew") this.changed = true;
      if (m === undefined || m.kind === "grew") this.grown = true;
      this.signal();
    });
    const onStop = () => this.signal();
    try {
      await watch.ready;
      this.changed = false;
      this.grown = false; // before the read: a wake-up during it reads again
      const { start } = this;
      // A job's first run may start from what the step that opened its epoch carried: a change
      // since is found by its confirmation (the webhook's generation), a later append by its
      // wake message or the close (more pending).
      const opened =
        start.mode === "job" && start.first
          ? { verdict: "open", ...start.first, ticket: start.ticket }
          : await workerScripts.openDrain(
              this.deps.redis,
              {
                webhook: keys.webhook(this.botId),
                status: keys.webhookStatus(this.botId),
                log: keys.updateLog(this.botId),
              },
              { count: READ_BATCH, mode: start.mode, ticket: start.mode === "job" ? start.ticket : "" },
            );
      // A job whose epoch is not the open one leaves the bot to that epoch's job (its end looks again).
      if (opened.verdict === "stale") return { reason: start.mode === "job" ? "changed" : "stale" };
      if (opened.verdict !== "open" && opened.verdict !== "none") return { reason: "held", held: opened.verdict };
      const config = webhookFromHash(fieldsOf(opened.webhook));
      if (!config) return { reason: "no_webhook" };
      // A timer's run that finds nothing pending has no epoch to drain.
      if (!opened.ticket) return { reason: "empty" };
      this.ticket = opened.ticket;
      this.config = config;
      const status = statusFromHash(fieldsOf(opened.status));
      this.okSeen = status.okSeen;
      this.retries = status.retries;
      this.take(opened.rows.map(([id, flat]) => decodeEntry(id, flat)));
      stop.addEventListener("abort", onStop);
      return await this.loop(stop);
    } finally {
      watch.stop();
      stop.removeEventListener("abort", onStop);
      for (const c of this.inflight.values()) c.abort();
    }
  }

  private async loop(stop: AbortSignal): Promise<DrainOutcome> {
    let lastCheck = Date.now();
    let ending: DrainOutcome | undefined;
    for (;;) {
      if (this.failure) throw this.failure;
      if (!ending && stop.aborted) ending = { reason: "stopped" }; // SIGTERM: finish in-flight requests
      if (!ending && (this.closed || this.superseded)) {
        // The epoch closed (the log is empty) or is not this drain's any more: nothing more to send.
        ending = { reason: this.closed ? "empty" : "changed" };
        for (const c of this.inflight.values()) c.abort();
      }
      const now = Date.now();
      // Announced changes at once; the slow re-read only covers a lost announcement.
      if (!ending && (this.changed || now - lastCheck >= this.deps.recheckMs)) {
        if (!this.changed) this.grown = true;
        this.changed = false;
        lastCheck = now;
        const current = await loadWebhook(this.deps.redis, this.botId);
        if (!current || current.generation !== this.config.generation) {
          // Removing or replacing the webhook ends its requests; they stay pending.
          ending = { reason: current ? "changed" : "no_webhook" };
          for (const c of this.inflight.values()) c.abort();
        }
      }
      // The log is read when it grew (its wake message) or the last read left more behind: a
      // drain never polls it.
      if (!ending && this.buffered < BUFFER_LOW && (this.grown || this.more)) await this.read();
      if (!ending) this.dispatch(Date.now());
      if (this.inflight.size === 0) {
        if (ending) return ending;
        // Nothing buffered, nothing in flight, nothing announced: the epoch closes when the log
        // is empty (an append after that opens the next epoch, with a job of its own); updates
        // this drain has not seen are read from the start.
        if (this.buffered === 0) {
          if (this.grown || this.more) continue;
          const epoch = await workerScripts.closeDrain(
            this.deps.redis,
            { webhook: keys.webhook(this.botId), log: keys.updateLog(this.botId) },
            { ticket: this.ticket },
          );
          if (epoch === "closed") return { reason: "empty" };
          if (epoch === "stale") return { reason: "changed" };
          this.lastReadId = 0;
          this.grown = true;
          continue;
        }
        const next = this.nextWakeup();
        if (next - Date.now() > HOLD_MS || this.deps.crowded())
          return { reason: "backoff", retryAt: next, generation: this.config.generation };
      }
      // Woken by a settled request, a message, the stop, or the next retry falling due.
      const due = this.inflight.size < this.limit() ? this.nextWakeup() - Date.now() : Infinity;
      await this.waitEvent(Math.max(0, Math.min(due, this.deps.recheckMs - (Date.now() - lastCheck))));
    }
  }

  private limit() {
    // "Until a success is seen, use one connection at a time."
    return this.okSeen ? this.config.maxConnections : 1;
  }

  private async read(): Promise<void> {
    this.grown = false; // before the read: a wake-up during it reads again
    this.take(await readEntries(this.deps.redis, this.botId, this.lastReadId, READ_BATCH));
  }

  /** Buffers a read's entries per queue key. */
  private take(entries: LogEntry[]): void {
    this.more = entries.length === READ_BATCH;
    for (const e of entries) {
      this.lastReadId = e.update_id;
      let q = this.queues.get(e.queue);
      if (!q) this.queues.set(e.queue, (q = []));
      q.push(e);
      this.buffered++;
    }
  }

  private headWakeup(q: LogEntry[]): number {
    return this.retries.get(q[0]!.update_id)?.wakeupAt ?? 0;
  }

  private nextWakeup(): number {
    let next = Infinity;
    for (const [key, q] of this.queues) if (!this.inflight.has(key)) next = Math.min(next, this.headWakeup(q));
    return next;
  }

  private dispatch(now: number) {
    const limit = this.limit();
    for (const [key, q] of this.queues) {
      if (this.inflight.size >= limit) return;
      if (this.inflight.has(key) || this.headWakeup(q) > now) continue;
      const entry = q[0]!;
      if (entry.expiresAt <= now) {
        this.settle(key, entry, this.drop(entry));
        continue;
      }
      const controller = new AbortController();
      this.inflight.set(key, controller);
      const started = performance.now();
      const target = { url: this.config.url, secretToken: this.config.secretToken };
      const slow = this.watchSlow();
      const done = this.deps
        .deliver(target, entry.json, controller.signal)
        .finally(() => clearInterval(slow))
        .then((result) => this.onResult(entry, result, performance.now() - started));
      this.settle(key, entry, done);
    }
  }

  /** Asks `onSlow` every `slow.ms` while an attempt is in flight, until the drain is handed over. */
  private watchSlow(): NodeJS.Timeout | undefined {
    const slow = this.deps.slow;
    if (!slow || this.handed) return undefined;
    const generation = this.config.generation;
    const t = setInterval(() => {
      if (this.handed || (this.handed = slow.onSlow(generation))) clearInterval(t);
    }, slow.ms);
    return t;
  }

  /** Runs `work` for the queue's head; the queue is busy until it ends, then moves on. */
  private settle(key: string, entry: LogEntry, work: Promise<"done" | "retry" | "keep">) {
    this.inflight.set(key, this.inflight.get(key) ?? new AbortController());
    work.then(
      (next) => {
        this.inflight.delete(key);
        if (next === "done") this.shift(key, entry);
        this.signal();
      },
      (err) => {
        this.inflight.delete(key);
        this.failure ??= err; // Redis trouble: the job fails and is scheduled again
        this.signal();
      },
    );
  }

  private shift(key: string, entry: LogEntry) {
    const q = this.queues.get(key);
    if (!q || q[0] !== entry) return;
    q.shift();
    this.buffered--;
    // Re-inserting moves the queue to the end of the Map: queues take turns.
    this.queues.delete(key);
    if (q.length > 0) this.queues.set(key, q);
  }

  private async drop(entry: LogEntry): Promise<"done" | "keep"> {
    const { epoch } = await confirmUpdates(this.deps.redis, this.botId, this.ticket, [entry.update_id], {
      reason: "expired",
    });
    if (!this.after(epoch)) return "keep";
    this.retries.delete(entry.update_id);
    this.deps.metrics.dropped.inc();
    return "done";
  }

  /** Notes what a confirmation found of the epoch; false when nothing was confirmed (the webhook changed). */
  private after(epoch: DrainEpoch): boolean {
    if (epoch === "closed") this.closed = true;
    if (epoch === "stale" || epoch === "changed") this.superseded = true;
    return epoch !== "changed";
  }

  private async onResult(entry: LogEntry, result: DeliveryResult, ms: number): Promise<"done" | "retry" | "keep"> {
    const { metrics, redis } = this.deps;
    const seconds = ms / 1000;
    const durationMs = Math.round(ms);
    if (result.outcome === "ok") {
      const { reply, status, ignored, release } = result.result;
      // The reply's bytes stay in the process's budget until its method call settles.
      let calling = false;
      try {
        const attempt = {
          update_ids: [entry.update_id],
          status,
          ...(ignored ? { error: ignored.error } : {}),
          duration_ms: durationMs,
        };
        const { epoch } = await confirmUpdates(redis, this.botId, this.ticket, [entry.update_id], { attempt });
        if (!this.after(epoch)) return "keep";
        // Delivered all the same; getWebhookInfo says why a method it may have carried did not run.
        if (ignored) {
          await recordReplyIgnored(redis, this.botId, this.config.generation, ignored.error, Date.now());
          metrics.replies.inc({ result: ignored.why === "too_long" ? "too_long" : "no_memory" });
        }
        const hadRetry = this.retries.delete(entry.update_id);
        const firstOk = !this.okSeen;
        this.okSeen = true;
        if (hadRetry || firstOk)
          await recordSuccess(redis, this.botId, hadRetry ? entry.update_id : undefined, firstOk);
        metrics.deliveries.inc({ result: "ok" });
        metrics.latency.observe(seconds);
        if (reply && typeof reply.method === "string") {
          calling = true;
          void this.deps.onReply(this.botId, reply).finally(release);
        }
        return "done";
      } finally {
        if (!calling) release?.();
      }
    }
    if (result.aborted) return "keep";
    metrics.deliveries.inc({ result: result.kind });
    metrics.failures.inc(failureLabels(result.kind, result.error));
    this.okSeen = false;
    const now = Date.now();
    const prev = this.retries.get(entry.update_id) ?? FRESH;
    const decision = nextRetry(prev, result.retryAfter, entry.expiresAt, now, this.deps.backoffScale);
    const attempt = {
      update_ids: [entry.update_id],
      ...(result.status === undefined ? {} : { status: result.status }),
      error: result.error,
      duration_ms: durationMs,
    };
    if (decision.outcome === "drop") {
      await recordFailure(redis, this.botId, {
        generation: this.config.generation,
        updateId: entry.update_id,
        message: result.error,
        retry: undefined,
        now,
        attempt,
      });
      return this.drop(entry);
    }
    this.retries.set(entry.update_id, decision.state);
    metrics.retryDelay.observe(Math.max(0, decision.state.wakeupAt - now) / 1000);
    await recordFailure(redis, this.botId, {
      generation: this.config.generation,
      updateId: entry.update_id,
      message: result.error,
      retry: decision.state,
      now,
      attempt,
    });
    this.deps.logger.debug(
      { botId: this.botId, update_id: entry.update_id, error: result.error, fails: decision.state.fails },
      "webhook delivery failed",
    );
    return "retry";
  }

  private signal() {
    const w = this.wake;
    this.wake = undefined;
    if (w) w();
    else this.signaled = true; // an event while the loop was busy: don't sleep on it
  }

  private waitEvent(ms: number): Promise<void> {
    if (this.signaled) {
      this.signaled = false;
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      const timer = setTimeout(() => this.signal(), ms);
      this.wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  }
}
