import { Queue, type JobType } from "bullmq";
import type { Redis } from "ioredis";
import { DELIVERY_SHARDS, keys, shardOf } from "@starpost/shared";
import type { Logger } from "@starpost/runtime";
import { logScripts, type DrainFirst } from "./lua/index.ts";
import { drainJobId, RECHECK_DELAY_MS } from "./ticket.ts";

/**
 * Webhook delivery jobs: one BullMQ job drains one bot's log for one drain epoch (ticket.ts). An
 * epoch opens in the step that appends to a bot nobody drains, and closes in the step that
 * leaves its log empty; the job id names the bot and the epoch, so adding a job for an epoch that
 * has one waiting or running is a no-op: one drain per bot at a time across every worker process,
 * and an append after a close never lands in the ending job.
 *
 * The jobs are spread over DELIVERY_SHARDS queues, each under its own hash tag, so on a Redis
 * Cluster no one master carries every job; a bot always goes to the same queue.
 */

export interface DrainJob {
  botId: string;
  ticket: string;
  /**
   * The webhook, its status and the whole log as the step that opened the epoch left them (a
   * small log only): the job's first run starts from them without reading.
   */
  first?: DrainFirst;
}

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
      // Tried again later, the job reads the log instead of carrying it; a later epoch's request wins.
      if (this.dirty.size < MAX_DIRTY_BOTS)
        this.dirty.set(botId, why.cause === "appended" ? { cause: "appended", ticket: why.ticket } : why);
      else this.sweepWanted = true;
      this.retryTimer ??= setTimeout(() => void this.retry(), this.retryMs);
    }
  }

  /**
   * A step that may open the bot's drain epoch: when it fails (a step that timed out may still be
   * applied, its epoch opened with no job asked for), Redis is asked again once it answers (a
   * "recheck", kept and retried like any refused request), and the error goes on to the caller.
   */
  async guard<T>(botId: string, redis: Redis, step: Promise<T>): Promise<T> {
    try {
      return await step;
    } catch (err) {
      void this.request(botId, { cause: "recheck", redis });
      throw err;
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
  /**
   * a step opened the bot's drain epoch (`ticket`: log_close's, release-retry.lua's), with what
   * its job may carry.
   */
  | { cause: "appended"; ticket: string; first?: DrainFirst }
  /** setWebhook stored a webhook; its first epoch's `ticket` when updates wait in the log. */
  | { cause: "webhook_set"; ticket: string | undefined }
  /**
   * Redis is asked (a webhook set and updates pending?): after a drain ended (`retryAt`: not
   * before then, after a drain that failed; `unlessHeld`: not while the retry timer holds the
   * bot), after a step whose outcome is unknown, and on the workers' reconciler passes.
   */
  | { cause: "recheck"; redis: Redis; retryAt?: number; unlessHeld?: boolean };

/**
 * Makes sure the drain job of the bot's open epoch exists when `why` calls for one. A job that
 * exists (waiting, running or delayed) is kept: the job id names the epoch (a running drain
 * notices new webhook settings by itself). A recheck's job waits RECHECK_DELAY_MS (see
 * ticket.ts). Resolves to whether a drain was asked for.
 */
export async function requestDrain(queues: DeliveryQueues, botId: string, why: DrainCause): Promise<boolean> {
  let delayMs = 0;
  let ticket: string | undefined;
  let first: DrainFirst | undefined;
  switch (why.cause) {
    case "appended":
      ({ ticket, first } = why);
      break;
    case "webhook_set":
      // A retry of the old webhook's was dropped with its status: the new webhook is tried at once.
      ticket = why.ticket;
      break;
    case "recheck":
      // A change right after is covered by the drain or the next request.
      ticket = await logScripts.pendingForWebhook(
        why.redis,
        { webhook: keys.webhook(botId), log: keys.updateLog(botId), status: keys.webhookStatus(botId) },
        { unlessHeld: why.unlessHeld ? "1" : "0" },
      );
      delayMs = Math.max(RECHECK_DELAY_MS, (why.retryAt ?? 0) - Date.now());
      break;
  }
  if (ticket === undefined) return false;
  await queues
    .forBot(botId)
    .add(
      "drain",
      { botId, ticket, ...(first ? { first } : {}) },
      { jobId: drainJobId(botId, ticket), delay: delayMs, removeOnComplete: true, removeOnFail: true },
    );
  return true;
}
