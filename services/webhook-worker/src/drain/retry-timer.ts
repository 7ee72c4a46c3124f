import { setMaxListeners } from "node:events";
import type { Redis } from "ioredis";
import { keys } from "@starpost/shared";
import type { Logger } from "@starpost/runtime";
import { workerScripts } from "../lua/index.ts";
import type { DrainOutcome } from "./bot-drain.ts";

/**
 * The workers' one timer for every webhook retry. A drain that must wait for a retry parks its
 * bot: `retry_at` in the bot's status and the bot in `keys.webhookRetries`, scored by when the
 * retry is due, and its job ends. The worker process that parked it looks when it is due (and
 * every process looks at the whole set every 30 s, for those of a process that died): it claims
 * what is due (claim-retries.lua rescores each claimed bot to when the claim lapses) and runs
 * those drains itself, outside BullMQ. A failing bot thus costs Redis its attempts
 * only: no job moved to delayed and back, no blocked BullMQ worker woken per retry.
 *
 * A drain job whose attempt is slow while its queue shard is crowded hands its drain, still
 * running, to the timer (handOver): the bot is marked `retry_at=run` and claimed as a claimed
 * retry is, and the drain runs on here, its end treated as a run's end. Such drains are counted in
 * the timer's slots even past them (they run already); the timer then claims no retry until it is
 * back under, and no hand-over is taken once it runs HANDED_PER_SLOT × slots drains (the drain
 * then keeps its BullMQ slot until its attempt ends). Stalling and failing bots thus share the
 * timer's slots, never the BullMQ ones.
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
/** The timer takes no hand-over once it runs this many drains per slot (runs and handed drains). */
export const HANDED_PER_SLOT = 8;

/**
 * A hand-over's result. "handed": the timer runs the drain now. "not_handed": nothing was
 * written (the webhook changed, the timer is full, a run of the bot is here already); the drain
 * stays the job's. "unknown": a write may have landed (a Redis error after it was sent: a
 * timed-out command may still be applied) or a run of the bot began here meanwhile; the caller
 * ends its drain and lets the job's normal end sort the bot out (a bot left `retry_at=run` is
 * adopted by its next drain job).
 */
export type HandOver = "handed" | "not_handed" | "unknown";

export interface RetryTimerDeps {
  redis: Redis;
  logger: Logger;
  /** runs a claimed bot's drain (open-drain.lua's "retry" mode) to its end. */
  run(botId: string, stop: AbortSignal): Promise<DrainOutcome>;
  /**
   * asks for the drain job of the bot's open epoch (`ticket`: updates are pending and the timer let
   * the bot go), or, without a ticket, for Redis to be asked whether one is wanted.
   */
  request(botId: string, ticket?: string): Promise<void>;
  /** the timer's runs at once, at most. */
  slots: number;
  /** a claim lapses this long after it was made or last renewed (a run renews it every third of it). */
  claimMs: number;
}

export class RetryTimer {
  private readonly key = keys.webhookRetries();
  /** each run's bot and the score of its claim. */
  private readonly running = new Map<string, { claimed: number; done: Promise<void>; renewing: Promise<void> }>();
  /** a timer for each retry this process parked, due then. */
  private readonly timers = new Set<NodeJS.Timeout>();
  /** the look at the whole set every LOOK_MS. */
  private sweep: NodeJS.Timeout | undefined;
  private looking = false;
  /** asked to look while a look was under way: look again once it ends. */
  private lookAgain = false;
  /** the last look left due bots unclaimed (no slot was free): the end of a run looks again. */
  private starved = false;
  private readonly stop = new AbortController();
  /** hand-overs under way (their Redis writes). */
  private readonly handing = new Set<Promise<HandOver>>();

  constructor(private readonly deps: RetryTimerDeps) {
    setMaxListeners(0, this.stop.signal); // one listener per run, on purpose
  }

  start(): void {
    this.sweep = setInterval(() => void this.look(), LOOK_MS);
    void this.look();
  }

  async close(): Promise<void> {
    this.stop.abort();
    clearInterval(this.sweep);
    for (const t of this.timers) clearTimeout(t);
    // A hand-over under way when the stop came adds its run once its writes are done.
    await Promise.allSettled([...this.handing]);
    await Promise.allSettled([...this.running.values()].map((r) => r.done));
  }

  /**
   * A drain that waits for a retry due at `retryAt` hands its bot to the timer. False when the
   * webhook it sent to is gone or replaced: the bot is not parked (the new webhook's drain runs).
   */
  async park(botId: string, generation: string, retryAt: number): Promise<boolean> {
    const { redis } = this.deps;
    if (!(await workerScripts.parkDrain(redis, statusKeys(botId), { generation, retryAt }))) return false;
    await redis.zadd(this.key, retryAt, botId);
    this.lookAt(retryAt);
    return true;
  }

  /**
   * A drain job's drain, still running, moves to the timer's slots (see above and HandOver).
   * Never rejects: an error is "unknown".
   */
  handOver(botId: string, generation: string, drain: Promise<DrainOutcome>): Promise<HandOver> {
    // A run of the bot here still ending (it let the bot go, the job started meanwhile): the job
    // keeps it. A full timer (hand-overs under way included) takes no more.
    if (
      this.running.has(botId) ||
      this.stop.signal.aborted ||
      this.running.size + this.handing.size >= this.deps.slots * HANDED_PER_SLOT
    )
      return Promise.resolve("not_handed");
    const handing = (async (): Promise<HandOver> => {
      const { redis } = this.deps;
      try {
        if (!(await workerScripts.parkDrain(redis, statusKeys(botId), { generation, retryAt: "run" })))
          return "not_handed";
        const claimed = Date.now() + this.deps.claimMs;
        // A worker that dies now leaves `run` in the status with no entry: a drain job then finds the
        // bot held and puts its entry back (adopt), as for a park.
        await redis.zadd(this.key, claimed, botId);
        // A run of the bot began here meanwhile (look() claimed a stale entry): two drains of it.
        return this.begin(botId, claimed, () => drain) ? "handed" : "unknown";
      } catch (err) {
        this.deps.logger.warn(
          { botId, err: { message: (err as Error).message } },
          "retry timer: hand-over failed; the drain ends",
        );
        return "unknown";
      }
    })();
    this.handing.add(handing);
    void handing.then(() => this.handing.delete(handing));
    return handing;
  }

  /**
   * A drain job found the bot held by the timer (`held`: its `retry_at`): the timer keeps it. Its
   * entry is put back if it went missing (a worker that died between parking and adding it).
   */
  async adopt(botId: string, held: string): Promise<void> {
    const due = /^\d+$/.test(held) ? Number(held) : Date.now() + this.deps.claimMs;
    await this.deps.redis.zadd(this.key, "NX", due, botId);
    this.lookAt(due);
  }

  /**
   * Looks at `at`: each process times the retries it parked (a claim then takes whatever is due,
   * other processes' too), and the sweep every LOOK_MS finds those of a process that died.
   */
  private lookAt(at: number): void {
    if (this.stop.signal.aborted) return;
    const t = setTimeout(
      () => {
        this.timers.delete(t);
        // A timer may fire a millisecond before the wall clock reaches `at` (timers keep their
        // own clock): then the claim would find the retry not yet due, and nothing would look
        // again until the sweep.
        if (Date.now() < at) this.lookAt(at);
        else void this.look();
      },
      Math.max(0, at - Date.now()),
    );
    this.timers.add(t);
  }

  /** Claims what is due, as many as there are free slots. */
  private async look(): Promise<void> {
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
      for (const botId of bots) this.begin(botId, claimed, () => this.deps.run(botId, this.stop.signal));
      // Due ones beyond the free slots are claimed when a run ends.
      this.starved = head !== undefined && head <= now;
    } catch (err) {
      this.deps.logger.warn(
        { err: { message: (err as Error).message } },
        "retry timer: could not claim; looking again",
      );
      this.lookAt(now + ERROR_RETRY_MS);
    } finally {
      this.looking = false;
      if (this.lookAgain) {
        this.lookAgain = false;
        void this.look();
      }
    }
  }

  /** Runs the bot's drain in a slot; false (the drain not started) when a run of the bot is here already. */
  private begin(botId: string, claimed: number, drain: () => Promise<DrainOutcome>): boolean {
    const running = this.running.get(botId);
    if (running) {
      // Claimed again while its run ends (its claim lapsed): the run's end drops the new claim.
      running.claimed = claimed;
      return false;
    }
    const run = { claimed, done: Promise.resolve(), renewing: Promise.resolve() };
    this.running.set(botId, run);
    const renew = setInterval(() => {
      const next = Date.now() + this.deps.claimMs;
      run.renewing = this.deps.redis.zadd(this.key, "XX", next, botId).then(
        () => void (run.claimed = next),
        () => undefined, // a lapsed claim is taken by another worker: at least once, as any drain
      );
    }, this.deps.claimMs / 3);
    run.done = drain()
      .then(async (outcome) => {
        // No renewal may land after the run's end has parked or dropped the bot.
        clearInterval(renew);
        await run.renewing;
        await this.finish(botId, run.claimed, outcome);
      })
      .catch((err: Error) =>
        this.deps.logger.warn({ botId, err: { message: err.message } }, "retry run failed; its claim lapses"),
      )
      .finally(() => {
        clearInterval(renew);
        this.running.delete(botId);
        if (this.starved) void this.look();
      });
    return true;
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
        // The bot left the timer: a setWebhook, a success, or a release whose answer was lost (an
        // error after it was sent), which may have left updates with no job asked for.
        await workerScripts.dropRetry(redis, { retries: this.key }, { botId, claimed });
        await this.deps.request(botId);
        return;
    }
    const ticket = await workerScripts.releaseRetry(redis, { ...statusKeys(botId), log: keys.updateLog(botId) }, {});
    // The drain job is asked for before the entry goes: a crash between leaves a stale entry
    // (dropped when claimed), never pending updates with nobody to drain them.
    if (ticket) await this.deps.request(botId, ticket);
    await workerScripts.dropRetry(redis, { retries: this.key }, { botId, claimed });
  }
}

const statusKeys = (botId: string) => ({ webhook: keys.webhook(botId), status: keys.webhookStatus(botId) });
