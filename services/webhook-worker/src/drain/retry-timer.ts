import type { Redis } from "ioredis";
import { keys } from "@starpost/shared";
import type { Logger } from "@starpost/runtime";
import { workerScripts } from "../lua/index.ts";
import type { DrainOutcome } from "./bot-drain.ts";

/**
 * The workers' one timer for every webhook retry. A drain that must wait for a retry parks its
 * bot: `retry_at` in the bot's status and the bot in `keys.webhookRetries`, scored by when the
 * retry is due, and its job ends. Each worker process sleeps until the earliest score it knows,
 * then claims what is due (claim-retries.lua rescores each claimed bot to when the claim lapses)
 * and runs those drains itself, outside BullMQ. A failing bot thus costs Redis its attempts
 * only: no job moved to delayed and back, no blocked BullMQ worker woken per retry.
 *
 * While the timer holds a bot, drain jobs leave it alone (open-drain.lua), so one drain runs per
 * bot as before. A run that ends with the log drained, or the webhook changed, lets the bot go
 * (release-retry.lua) and asks for a drain job when updates are pending; one that fails again
 * parks the bot again. A worker killed during a run leaves its claim to lapse, and another worker
 * claims the bot again then.
 */

/** The longest the timer sleeps without looking at the set: bots parked by a worker that died since are found within it. */
const LOOK_MS = 30_000;
/** After a Redis error, the timer looks again this much later. */
const ERROR_RETRY_MS = 1_000;

export interface RetryTimerDeps {
  redis: Redis;
  logger: Logger;
  /** runs a claimed bot's drain (open-drain.lua's "retry" mode) to its end. */
  run(botId: string, stop: AbortSignal): Promise<DrainOutcome>;
  /** asks for a drain job (updates are pending and the timer let the bot go). */
  request(botId: string): void;
  /** the timer's runs at once, at most. */
  slots: number;
  /** a claim lapses this long after it was made or last renewed (a run renews it every third of it). */
  claimMs: number;
}

export class RetryTimer {
  private readonly key = keys.webhookRetries();
  /** each run's bot and the score of its claim. */
  private readonly running = new Map<string, { claimed: number; done: Promise<void> }>();
  private timer: NodeJS.Timeout | undefined;
  /** when the timer fires next (Infinity: not armed). */
  private nextAt = Infinity;
  private looking = false;
  /** armed again while a look was under way: look again once it ends. */
  private lookAgain = false;
  private readonly stop = new AbortController();

  constructor(private readonly deps: RetryTimerDeps) {}

  start(): void {
    this.arm(0);
  }

  async close(): Promise<void> {
    this.stop.abort();
    clearTimeout(this.timer);
    await Promise.allSettled([...this.running.values()].map((r) => r.done));
  }

  get runs(): number {
    return this.running.size;
  }

  /**
   * A drain that waits for a retry due at `retryAt` hands its bot to the timer. False when the
   * webhook it sent to is gone or replaced: the bot is not parked (the new webhook's drain runs).
   */
  async park(botId: string, generation: string, retryAt: number): Promise<boolean> {
    const { redis } = this.deps;
    if (!(await workerScripts.parkDrain(redis, statusKeys(botId), { generation, retryAt }))) return false;
    await redis.zadd(this.key, retryAt, botId);
    this.arm(retryAt);
    return true;
  }

  /**
   * A drain job found the bot held by the timer (`held`: its `retry_at`): the timer keeps it. Its
   * entry is put back if it went missing (a worker that died between parking and adding it).
   */
  async adopt(botId: string, held: string): Promise<void> {
    const due = /^\d+$/.test(held) ? Number(held) : Date.now() + this.deps.claimMs;
    await this.deps.redis.zadd(this.key, "NX", due, botId);
    this.arm(due);
  }

  /** Fires at `at` unless it already fires sooner. */
  private arm(at: number): void {
    if (this.stop.signal.aborted || at >= this.nextAt) return;
    clearTimeout(this.timer);
    this.nextAt = at;
    this.timer = setTimeout(() => void this.look(), Math.max(0, Math.min(at - Date.now(), LOOK_MS)));
  }

  /** Claims what is due (as many as there are free slots) and sleeps until the next one. */
  private async look(): Promise<void> {
    this.nextAt = Infinity;
    if (this.stop.signal.aborted) return;
    if (this.looking) {
      this.lookAgain = true;
      return;
    }
    this.looking = true;
    const now = Date.now();
    try {
      const claimed = now + this.deps.claimMs;
      const { head, bots } = await workerScripts.claimRetries(
        this.deps.redis,
        { retries: this.key },
        { now, claimed, max: Math.max(0, this.deps.slots - this.running.size) },
      );
      for (const botId of bots) this.begin(botId, claimed);
      // Due ones beyond the free slots are claimed when a run ends (finish arms at once).
      if (head !== undefined && (head > now || this.running.size < this.deps.slots)) this.arm(head);
      else if (head === undefined) this.arm(now + LOOK_MS);
    } catch (err) {
      this.deps.logger.warn(
        { err: { message: (err as Error).message } },
        "retry timer: could not claim; looking again",
      );
      this.arm(now + ERROR_RETRY_MS);
    } finally {
      this.looking = false;
      if (this.lookAgain) {
        this.lookAgain = false;
        this.arm(Date.now());
      }
    }
  }

  private begin(botId: string, claimed: number): void {
    if (this.running.has(botId)) return; // claimed again while its run ends: the run handles it
    const run = { claimed, done: Promise.resolve() };
    this.running.set(botId, run);
    const renew = setInterval(() => {
      const next = Date.now() + this.deps.claimMs;
      this.deps.redis.zadd(this.key, "XX", next, botId).then(
        () => (run.claimed = next),
        () => undefined, // a lapsed claim is taken by another worker: at least once, as any drain
      );
    }, this.deps.claimMs / 3);
    run.done = this.deps
      .run(botId, this.stop.signal)
      .then((outcome) => this.finish(botId, run.claimed, outcome))
      .catch((err: Error) =>
        this.deps.logger.warn({ botId, err: { message: err.message } }, "retry run failed; its claim lapses"),
      )
      .finally(() => {
        clearInterval(renew);
        this.running.delete(botId);
        if (!this.stop.signal.aborted) this.arm(Date.now());
      });
  }

  private async finish(botId: string, claimed: number, outcome: DrainOutcome): Promise<void> {
    const { redis } = this.deps;
    switch (outcome.reason) {
      case "backoff":
        if (await this.park(botId, outcome.generation, outcome.retryAt)) return;
        break;
      case "stopped":
        // Shutting down: any worker may run it at once.
        await redis.zadd(this.key, "XX", Date.now(), botId);
        return;
      case "stale":
        await workerScripts.dropRetry(redis, { retries: this.key }, { botId, claimed });
        return;
    }
    const pending = await workerScripts.releaseRetry(redis, { ...statusKeys(botId), log: keys.updateLog(botId) }, {});
    await workerScripts.dropRetry(redis, { retries: this.key }, { botId, claimed });
    if (pending > 0) this.deps.request(botId);
  }
}

const statusKeys = (botId: string) => ({ webhook: keys.webhook(botId), status: keys.webhookStatus(botId) });
