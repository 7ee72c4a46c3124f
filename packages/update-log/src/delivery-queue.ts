import { Queue, type JobType } from "bullmq";
import type { Redis } from "ioredis";
import { DELIVERY_SHARDS, keys, shardOf } from "@starpost/shared";
import type { Logger } from "@starpost/runtime";
import { logScripts } from "./lua/index.ts";

/**
 * Webhook delivery jobs: one BullMQ job drains one bot's log. The job id is derived from the
 * bot id, so adding a job for a bot that already has one waiting or running is a no-op: one drain
 * per bot at a time across every worker process.
 *
 * The jobs are spread over DELIVERY_SHARDS queues, each under its own hash tag, so on a Redis
 * Cluster no one master carries every job; a bot always goes to the same queue.
 */

export interface DrainJob {
  botId: string;
}

export const drainJobId = (botId: string) => `bot-${botId}`;

/** A drain request Redis refused is tried again after this long, doubling up to the maximum. */
const RETRY_MIN_MS = 500;
const RETRY_MAX_MS = 30_000;
/** This process keeps at most this many refused requests; past it, the workers sweep instead. */
export const MAX_DIRTY_BOTS = 10_000;

export class DeliveryQueues {
  /** queue `i` holds the bots whose shard is `i`. */
  readonly all: Queue<DrainJob>[];
  /** this process's dirty set: bots whose drain request Redis refused, with the request. */
  private readonly dirty = new Map<string, DrainCause>();
  /** a sweep of every webhook bot is to be asked of the workers (keys.sweepEpoch). */
  private sweepWanted = false;
  private retryTimer: NodeJS.Timeout | undefined;
  private retryMs = RETRY_MIN_MS;

  constructor(
    private readonly connection: Redis,
    private readonly logger?: Logger,
  ) {
    this.all = Array.from(
      { length: DELIVERY_SHARDS },
      (_, i) => new Queue<DrainJob>(keys.deliveryQueue(i), { connection, prefix: keys.queuePrefix() }),
    );
  }

  /**
   * requestDrain for a step that has been applied: it never fails its caller. A request Redis
   * refuses is kept in this process's dirty set and tried again, with a growing delay, until it
   * goes through; past MAX_DIRTY_BOTS the set asks every worker for a sweep instead. If this
   * process dies first, its restart asks for that sweep (`askSweep`).
   */
  async request(botId: string, why: DrainCause): Promise<void> {
    try {
      await requestDrain(this, botId, why);
    } catch (err) {
      this.logger?.warn(
        { botId, err: { message: (err as Error).message } },
        "could not schedule a drain; trying again",
      );
      if (this.dirty.size < MAX_DIRTY_BOTS) this.dirty.set(botId, why);
      else this.sweepWanted = true;
      this.retryTimer ??= setTimeout(() => void this.retry(), this.retryMs);
    }
  }

  /**
   * Asks every worker to sweep every webhook bot once (a process that schedules drains has
   * started: one before it may have died between a step and its request), now and, while Redis
   * refuses, until it takes it.
   */
  askSweep(): void {
    this.sweepWanted = true;
    this.retryTimer ??= setTimeout(() => void this.retry(), 0);
  }

  private async retry(): Promise<void> {
    for (const [botId, why] of [...this.dirty]) {
      try {
        await requestDrain(this, botId, why);
        this.dirty.delete(botId);
      } catch {
        break; // Redis still refuses: wait longer
      }
    }
    if (this.dirty.size === 0 && this.sweepWanted) {
      this.sweepWanted = !(await this.connection.incr(keys.sweepEpoch()).then(
        () => true,
        () => false,
      ));
    }
    this.retryTimer = undefined;
    if (this.dirty.size === 0 && !this.sweepWanted) {
      this.retryMs = RETRY_MIN_MS;
      return;
    }
    this.retryMs = Math.min(this.retryMs * 2, RETRY_MAX_MS);
    this.retryTimer = setTimeout(() => void this.retry(), this.retryMs);
  }

  forBot(botId: string): Queue<DrainJob> {
    return this.all[shardOf(botId, DELIVERY_SHARDS)]!;
  }

  /** Jobs by state, summed over the shards. */
  async counts(...states: JobType[]): Promise<Record<string, number>> {
    const sum: Record<string, number> = {};
    for (const counts of await Promise.all(this.all.map((q) => q.getJobCounts(...states)))) {
      for (const [state, n] of Object.entries(counts)) sum[state] = (sum[state] ?? 0) + n;
    }
    return sum;
  }

  async close(): Promise<void> {
    clearTimeout(this.retryTimer);
    await Promise.all(this.all.map((q) => q.close()));
  }
}

/** `logger` hears each drain request Redis refused (kept and tried again). */
export function createDeliveryQueue(connection: Redis, logger?: Logger): DeliveryQueues {
  return new DeliveryQueues(connection, logger);
}

/**
 * Why a bot's log may need a drain. Every caller names its cause and `requestDrain` decides: the
 * one place that decides whether and when a bot's webhook delivery runs.
 */
export type DrainCause =
  /** a Lua step appended through update-log.lua; `pending` is its pending signal (log_close). */
  | { cause: "appended"; pending: boolean }
  /** setWebhook stored a webhook; `pending` updates wait in the log. */
  | { cause: "webhook_set"; pending: number }
  /**
   * Redis is asked (a webhook set and updates pending?): after a drain ended (`retryAt`: not
   * before then, after a drain that failed) and on the workers' reconciler passes.
   */
  | { cause: "recheck"; redis: Redis; retryAt?: number };

/**
 * Makes sure the bot's drain job exists when `why` calls for one. A job that exists (waiting,
 * running or delayed) is kept: the job id is per bot (a running drain notices new webhook
 * settings by itself). Resolves to whether a drain was asked for.
 */
export async function requestDrain(queues: DeliveryQueues, botId: string, why: DrainCause): Promise<boolean> {
  let delayMs = 0;
  switch (why.cause) {
    case "appended":
      if (!why.pending) return false;
      break;
    case "webhook_set":
      // A retry of the old webhook's was dropped with its status: the new webhook is tried at once.
      if (why.pending === 0) return false;
      break;
    case "recheck": {
      // A change right after is covered by the drain or the next request.
      const pending = await logScripts.pendingForWebhook(
        why.redis,
        { webhook: keys.webhook(botId), log: keys.updateLog(botId) },
        {},
      );
      if (pending === 0) return false;
      if (why.retryAt !== undefined) delayMs = Math.max(0, why.retryAt - Date.now());
      break;
    }
  }
  await queues
    .forBot(botId)
    .add("drain", { botId }, { jobId: drainJobId(botId), delay: delayMs, removeOnComplete: true, removeOnFail: true });
  return true;
}
