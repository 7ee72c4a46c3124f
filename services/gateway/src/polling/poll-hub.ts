import { randomBytes } from "node:crypto";
import type { Redis } from "ioredis";
import { channels, ok, RawJson, type CarriedUpdates, type WakeMessage } from "@starpost/shared";
import {
  isStorageUnavailable,
  reportStorageUnavailable,
  type ChannelRouter,
  type Listening,
  type Logger,
  type Registry,
} from "@starpost/runtime";
import { pollUpdates, releasePoll } from "@starpost/update-log";
import type { Outcome } from "../outcomes.ts";
import { spacedConflict, type Conflict } from "./conflicts.ts";
import { pollingMetrics, type PollingMetrics } from "./metrics.ts";

export interface PollHubDeps {
  redis: Redis;
  /** the process's channel router: one subscription per bot with waiting polls, never one per poll. */
  router: ChannelRouter;
  logger: Logger;
  registry: Registry;
}

/** The claim in Redis outlives the poll's own deadline by this much (a stuck process frees it). */
const CLAIM_MARGIN_MS = 10_000;

/** One waiting getUpdates request of this process. */
interface Waiter {
  id: string;
  botId: string;
  offset: number;
  limit: number;
  deadline: number;
  started: number;
  /** a read of the log is in flight. */
  reading: boolean;
  /** woken while a read was in flight: read again. */
  dirty: boolean;
  /** the deadline passed: the next read is the last. */
  expired: boolean;
  /** the wake messages heard since the last look, with the updates each carried (undefined: none). */
  heard: (CarriedUpdates | undefined)[];
  done: boolean;
  wakeTimer?: NodeJS.Immediate;
  deadlineTimer?: NodeJS.Timeout;
  answer: Promise<PollAnswer>;
  resolve(outcome: PollAnswer): void;
}

export interface WaitRequest {
  botId: string;
  offset: number;
  limit: number;
  timeoutMs: number;
  signal: AbortSignal;
  /** allowed_updates, stored by the first read's step (see PollRead). */
  allowed?: string[] | null;
  /** the call's request log entry, written by the first read's step when it answers at once. */
  log?: StepLog;
}

/**
 * A call's request log entry for the Redis step that answers it to write itself (getUpdates'
 * read, poll-updates.lua), saving the write after the answer: the entry as it stands (status
 * 200, the time taken so far), and `written()` once the step wrote it.
 */
export interface StepLog {
  entry: string;
  written(): void;
}

/** What getUpdates answers: the updates (as their JSON), a 409, or a failed read. */
export type PollAnswer = Outcome<RawJson, Conflict | { outcome: "poll_failed" } | { outcome: "storage_unavailable" }>;

export const updatesResult = (updates: string[]): PollAnswer => ok(new RawJson(`[${updates.join(",")}]`));

/**
 * The long polls held by this gateway, on the bot's own connection: a waiting poll costs no
 * forwarded request, no socket to another service and no Redis connection. The hub listens on the
 * wake channel of each bot with waiting polls, through the process's channel router, and hands its
 * messages to the local waiters of that bot. Which poll of a bot may wait is decided in
 * Redis (poll-updates.lua), so conflicts hold across replicas; setWebhook (in the updates service)
 * ends a waiting poll by the message set-webhook.lua publishes on the same channel.
 */
export class PollHub {
  private readonly redis: Redis;
  private readonly router: ChannelRouter;
  private readonly logger: Logger;
  private readonly metrics: PollingMetrics;
  /** the waiting polls of each bot, and the hub's listener on that bot's wake channel. */
  private readonly byBot = new Map<string, { waiters: Set<Waiter>; listening: Listening }>();
  private readonly replicaId = randomBytes(6).toString("base64url");
  private nextPoll = 0;
  private waiting = 0;
  private started = false;
  private stopLost?: () => void;

  constructor(deps: PollHubDeps) {
    this.redis = deps.redis;
    this.router = deps.router;
    this.logger = deps.logger.child({ component: "polling" });
    this.metrics = pollingMetrics(deps.registry, () => this.waiting);
  }

  start(): void {
    // Messages published while the subscriber was reconnecting (or a cluster master failed over)
    // are lost: every waiter looks again.
    this.stopLost = this.router.onMaybeLost(() => {
      for (const botId of this.byBot.keys()) this.wake(botId);
    });
    this.started = true;
  }

  /** Answers every waiting poll (nothing is confirmed, so nothing is lost) and stops listening. */
  async close(): Promise<void> {
    this.stopLost?.();
    this.started = false;
    const all = [...this.byBot.values()].flatMap(({ waiters }) => [...waiters]);
    for (const w of all) this.finish(w, updatesResult([]), "shutdown");
    await Promise.all(all.map((w) => releasePoll(this.redis, w.botId, w.id).catch(() => undefined)));
  }

  get waitingCount(): number {
    return this.waiting;
  }

  /** A 409 with the 3-second spacing, counted by reason. */
  conflict(botId: string, conflict: Conflict): Promise<PollAnswer> {
    this.metrics.conflicts.inc({ reason: conflict.outcome });
    return spacedConflict(this.redis, botId, conflict);
  }

  /** An answer that did not wait (timeout 0, or updates were ready), for the metrics. */
  answeredAtOnce(): void {
    this.metrics.answered.inc({ end: "immediate" });
  }

  /**
   * getUpdates with timeout > 0: reads; with nothing ready, becomes the bot's waiting poll (the
   * older one, on any replica, answers 409) and waits for a wake-up, the deadline, or its client
   * leaving.
   */
  async wait(req: WaitRequest): Promise<PollAnswer> {
    // Shutting down: held polls were answered empty, and so is one that arrives meanwhile.
    if (!this.started) return updatesResult([]);
    const w = this.register(req);
    // Registered before the first read, so a wake-up during the read is not missed (it sets dirty).
    w.reading = true;
    let first;
    try {
      // Subscribed to the bot's channel before the read, so no wake-up falls between the two.
      await this.byBot.get(req.botId)!.listening.ready;
      first = await pollUpdates(this.redis, req.botId, {
        offset: req.offset,
        limit: req.limit,
        pollId: w.id,
        mode: "claim",
        ownerTtlMs: req.timeoutMs + CLAIM_MARGIN_MS,
        allowed: req.allowed,
        logEntry: req.log?.entry,
      });
      if (first.outcome === "webhook") {
        this.unregister(w);
        return this.conflict(req.botId, { outcome: "webhook_active" });
      }
    } catch (err) {
      this.unregister(w);
      throw err;
    } finally {
      w.reading = false;
    }
    if (first.outcome === "updates") {
      // Read before any setWebhook step that ended the waiter meanwhile: the updates are the answer.
      req.log?.written();
      if (!w.done) this.unregister(w);
      this.answeredAtOnce();
      return updatesResult(first.updates);
    }
    if (w.done) return w.answer; // a newer poll took over during the first read
    if (req.signal.aborted) {
      this.leave(w);
      return w.answer;
    }
    req.signal.addEventListener("abort", () => this.leave(w), { once: true });
    w.deadlineTimer = setTimeout(() => {
      w.expired = true;
      void this.pump(w);
    }, req.timeoutMs);
    if (w.dirty) void this.pump(w);
    return w.answer;
  }

  private register(req: WaitRequest): Waiter {
    let resolve!: (outcome: PollAnswer) => void;
    const answer = new Promise<PollAnswer>((r) => (resolve = r));
    const w: Waiter = {
      id: `${this.replicaId}.${++this.nextPoll}`,
      botId: req.botId,
      offset: req.offset,
      limit: req.limit,
      deadline: Date.now() + req.timeoutMs,
      started: performance.now(),
      reading: false,
      dirty: false,
      expired: false,
      heard: [],
      done: false,
      answer,
      resolve,
    };
    let bot = this.byBot.get(req.botId);
    if (!bot) {
      const botId = req.botId;
      const listening = this.router.listen(channels.wake, botId, (m) => this.heard(botId, m));
      listening.ready.catch(() => undefined); // the first read awaits it and answers the failure
      this.byBot.set(botId, (bot = { waiters: new Set(), listening }));
    }
    bot.waiters.add(w);
    this.waiting++;
    return w;
  }

  private unregister(w: Waiter): void {
    const bot = this.byBot.get(w.botId);
    if (!bot?.waiters.delete(w)) return;
    this.waiting--;
    if (bot.waiters.size > 0) return;
    this.byBot.delete(w.botId);
    bot.listening.stop();
  }

  private waitersOf(botId: string): Waiter[] {
    const bot = this.byBot.get(botId);
    return bot ? [...bot.waiters] : [];
  }

  private heard(botId: string, m: WakeMessage): void {
    if (m.botId !== botId || !this.byBot.has(botId)) return;
    if (m.kind === "grew") return this.wake(botId, m.updates);
    if (m.kind === "webhook_deleted") return;
    for (const w of this.waitersOf(m.botId)) {
      if (m.kind === "webhook") this.terminate(w, { outcome: "set_webhook" });
      else if (w.id === m.pollId) this.terminate(w, { outcome: "other_get_updates" });
    }
  }

  /** `updates`: what the append that woke the bot carried; undefined makes the waiter read. */
  private wake(botId: string, updates?: CarriedUpdates): void {
    this.metrics.wakeups.inc();
    for (const w of this.waitersOf(botId)) {
      if (w.reading) {
        w.dirty = true;
        continue;
      }
      w.heard.push(updates);
      if (!w.wakeTimer) {
        // The batching delay: every wake message already read from the socket is handled first,
        // so updates pushed together are answered together, at no added latency.
        w.wakeTimer = setImmediate(() => {
          w.wakeTimer = undefined;
          const carried = carriedAnswer(w);
          w.heard = [];
          if (carried !== undefined && !w.done && w.deadlineTimer) this.finish(w, updatesResult(carried), "woken");
          else void this.pump(w);
        });
      }
    }
  }

  /** Reads the log for a waiter until it has an answer, or nothing new arrived while reading. */
  private async pump(w: Waiter): Promise<void> {
    if (w.reading || w.done || !w.deadlineTimer) return;
    w.reading = true;
    try {
      do {
        w.dirty = false;
        const last = w.expired;
        const r = await pollUpdates(this.redis, w.botId, {
          offset: w.offset,
          limit: w.limit,
          pollId: w.id,
          mode: last ? "none" : "rearm",
          ownerTtlMs: Math.max(w.deadline - Date.now(), 0) + CLAIM_MARGIN_MS,
        });
        if (w.done) return;
        if (r.outcome === "updates") return this.finish(w, updatesResult(r.updates), last ? "timeout" : "woken");
        // A webhook was set while this poll waited (its setWebhook message may still be on the way).
        if (r.outcome === "webhook") return this.terminate(w, { outcome: "set_webhook" });
        if (r.outcome === "gone") return this.terminate(w, { outcome: "other_get_updates" });
      } while (w.dirty || w.expired);
    } catch (err) {
      // Redis not answering fails every held poll at once: one line names it, not one per poll.
      const unavailable = isStorageUnavailable(err);
      if (unavailable) reportStorageUnavailable(this.logger, err as Error);
      else this.logger.error({ err: { message: (err as Error).message }, botId: w.botId }, "long poll read failed");
      this.finish(w, { outcome: unavailable ? "storage_unavailable" : "poll_failed" }, "error");
    } finally {
      w.reading = false;
    }
  }

  private finish(w: Waiter, outcome: PollAnswer, end: string): void {
    if (w.done) return;
    w.done = true;
    clearImmediate(w.wakeTimer);
    clearTimeout(w.deadlineTimer);
    this.unregister(w);
    this.metrics.answered.inc({ end });
    this.metrics.waited.observe({ end }, (performance.now() - w.started) / 1000);
    w.resolve(outcome);
  }

  /** 409 for a waiter; it stops taking wake-ups at once, the answer may come 3 s later. */
  private terminate(w: Waiter, conflict: Conflict): void {
    if (w.done) return;
    w.done = true;
    clearImmediate(w.wakeTimer);
    clearTimeout(w.deadlineTimer);
    this.unregister(w);
    this.metrics.answered.inc({ end: "conflict" });
    this.conflict(w.botId, conflict).then(w.resolve, () => w.resolve(conflict));
  }

  /** The client went away: free the waiter now; nothing was confirmed by waiting, so nothing is lost. */
  private leave(w: Waiter): void {
    if (w.done) return;
    this.finish(w, updatesResult([]), "disconnected");
    this.release(w);
  }

  /** Ends the waiter's claim on its bot, unless a newer poll took it meanwhile. */
  private release(w: Waiter): void {
    releasePoll(this.redis, w.botId, w.id).catch((err: Error) =>
      this.logger.warn({ err: { message: err.message }, botId: w.botId }, "could not release a poll"),
    );
  }
}

/**
 * The answer a woken poll gives without reading the log: the updates its wake messages carried,
 * when every message carried its updates, they follow one another, start at or past the poll's
 * offset and fit its limit. The poll claimed the bot after reading the log and finding nothing,
 * so what was appended since is the oldest the bot has not seen. Otherwise undefined: read.
 */
function carriedAnswer(w: Waiter): string[] | undefined {
  const first = w.heard[0];
  // A negative offset keeps only the newest updates: the read decides.
  if (first === undefined || w.offset < 0 || (w.offset > 0 && first.firstId < w.offset)) return undefined;
  let next = first.firstId;
  let count = 0;
  const parts: string[] = [];
  for (const u of w.heard) {
    if (u === undefined || u.firstId !== next) return undefined;
    next += u.count;
    count += u.count;
    parts.push(u.json.slice(1, -1));
  }
  return count <= w.limit ? parts : undefined;
}
