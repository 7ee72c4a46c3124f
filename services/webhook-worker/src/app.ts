import { setMaxListeners } from "node:events";
import { Worker, type Job } from "bullmq";
import type { FastifyInstance } from "fastify";
import type { Redis } from "ioredis";
import { keys } from "@starpost/shared";
import { ChannelRouter, isStorageUnavailable, OwnEndpoints, Registry, type Logger } from "@starpost/runtime";
import { CARRIED_FRESH_MS, createDeliveryQueue, type DrainJob } from "@starpost/update-log";
import { createHttpServer, registerOps, type ServiceClient } from "@starpost/http";
import { WORKER_BUSY, WORKER_BUSY_EVERY_MS } from "./busy.ts";
import { WebhookSender, type SenderOptions } from "./delivery/sender.ts";
import { TargetGuard } from "./delivery/target-guard.ts";
import { BotDrain, type DrainOutcome } from "./drain/bot-drain.ts";
import { RetryTimer, type HandOver } from "./drain/retry-timer.ts";
import { WebhookChanges } from "./drain/webhook-changes.ts";
import { workerMetrics } from "./metrics.ts";
import { oldestPendingAges, type PendingState } from "./pending-age.ts";
import { startReconciler } from "./reconciler.ts";
import { replyMethodRunner } from "./reply-method.ts";

/** How long an idle BullMQ worker blocks for (one per queue shard per process). */
const IDLE_BLOCK_S = 30;

export interface WorkerDeps {
  redis: Redis;
  /** READY_TIMEOUT_MS: how long /readyz waits for its checks. */
  readyTimeoutMs?: number;
  logger: Logger;
  registry: Registry;
}

/** The worker's small HTTP face: /healthz, /readyz and /metrics for operators. */
export async function buildOpsApp(deps: WorkerDeps): Promise<FastifyInstance> {
  const app = createHttpServer(deps.logger);
  registerOps(app, {
    registry: deps.registry,
    ready: async () => (await deps.redis.ping()) === "PONG",
    timeoutMs: deps.readyTimeoutMs,
  });
  return app;
}

export interface DeliveryWorkerDeps extends WorkerDeps {
  /** a BullMQ connection (`createRedis({ bullmq: true })`) for the worker and its queue. */
  connection: Redis;
  /** the process's one subscriber connection, for its channel router: webhook changes pushed to its drains. */
  subscriber: Redis;
  /** runs methods found in webhook answers in their owning services. */
  services: ServiceClient;
  /** bots drained at once by this process. */
  concurrency: number;
  /**
   * BullMQ lock: a killed worker's drain is taken over by another after about lock + stalled
   * interval; a retry run's claim lapses after the lock too (see RetryTimer).
   */
  lockDurationMs: number;
  stalledIntervalMs: number;
  reconcileMs: number;
  backoffScale: number;
  /**
   * A drain job whose attempt is still in flight after this long while its shard is crowded hands
   * its drain to the retry timer's slots (see RetryTimer.handOver).
   */
  slowMs: number;
  sender: SenderOptions;
  /** failing bots whose oldest pending update a scrape reads (METRICS_PENDING_SAMPLE). */
  pendingSample: number;
  /** CARRIED_FRESH_MS unless given (tests). */
  firstFreshMs?: number;
}

export interface DeliveryWorker {
  start(): void;
  /** SIGTERM: stop taking drains, finish the requests in flight, hand pending work back to the queue. */
  close(): Promise<void>;
}

/** The webhook delivery pool of one process: a BullMQ worker whose jobs each drain one bot. */
export function buildWorker(deps: DeliveryWorkerDeps): DeliveryWorker {
  const { redis, logger } = deps;
  const metrics = workerMetrics(deps.registry);
  const queue = createDeliveryQueue(deps.connection, logger);
  const sender = new WebhookSender(
    deps.sender,
    new TargetGuard(deps.sender.allowPrivateNetworks, new OwnEndpoints(deps.redis)),
  );
  const replies = replyMethodRunner(deps.services, redis, logger, metrics);
  const stop = new AbortController();
  // Every drain running here listens to it, on purpose: not a leak.
  setMaxListeners(0, stop.signal);
  const followUps = new Set<Promise<void>>();
  const router = new ChannelRouter(deps.subscriber);
  const changes = new WebhookChanges(router, logger);

  deps.registry.gauge(
    "starpost_webhook_queue_depth",
    "Drain jobs (one per bot with pending updates) by state",
    async () => {
      const counts = await queue.counts("wait", "active", "delayed");
      return Object.entries(counts).map(([state, n]) => [{ state }, n]);
    },
    ["state"],
  );
  deps.registry.gauge(
    "starpost_webhook_retries_waiting",
    "Failing webhook bots the retry timer holds (waiting for a retry or running it)",
    () => redis.zcard(keys.webhookRetries()),
  );
  /** the bots whose drain runs in this process now. */
  const here = new Map<string, PendingState>();
  deps.registry.gauge(
    "starpost_webhook_oldest_pending_age_seconds",
    "Age of the oldest pending update of webhook bots, by state: delivering (drained here now), waiting (for a drain slot), retrying (failing webhook)",
    async () => {
      const ages = await oldestPendingAges({ redis, queue, here, sample: deps.pendingSample });
      return Object.entries(ages).map(([state, n]) => [{ state }, n]);
    },
    ["state"],
  );

  // One BullMQ worker per delivery queue shard: this process drains bots of every shard, its
  // concurrency split evenly between them.
  const perShard = Math.max(1, Math.ceil(deps.concurrency / queue.all.length));
  /** drains running now, per shard. */
  const running = queue.all.map(() => 0);
  let busySaidAt = -Infinity;
  const taken = (shard: number) => {
    if (++running[shard]! < perShard || performance.now() - busySaidAt < WORKER_BUSY_EVERY_MS) return;
    busySaidAt = performance.now();
    logger.warn({ shard, slots: perShard }, WORKER_BUSY);
  };

  const drainDeps = {
    redis,
    logger,
    metrics,
    backoffScale: deps.backoffScale,
    deliver: sender.deliver.bind(sender),
    onReply: replies.run,
    changes,
    // A lost change announcement is noticed on the reconciler's rhythm.
    recheckMs: deps.reconcileMs,
  };

  // The retry timer runs the drains of bots waiting for a retry, outside BullMQ, in slots of its
  // own (as many as the process's concurrency): failing bots never take a healthy bot's slot.
  const timer = new RetryTimer({
    redis,
    logger,
    slots: deps.concurrency,
    // A claim is the timer's lock: a killed worker's run is taken over as its BullMQ jobs are.
    claimMs: deps.lockDurationMs,
    run: (botId, signal) => {
      here.set(botId, "retrying");
      return new BotDrain({ ...drainDeps, crowded: () => true }, botId, { mode: "retry" })
        .run(signal)
        .finally(() => here.delete(botId));
    },
    request: (botId, ticket) =>
      track(queue.request(botId, ticket ? { cause: "appended", ticket } : { cause: "recheck", redis })),
  });

  /**
   * Runs the bot's drain job. A drain that ends waiting for a retry hands the bot to the retry
   * timer (one timer entry per failing bot, not a job per attempt); a drain that finds the bot
   * held by the timer leaves it to the timer. A drain whose attempt is in flight longer than
   * `slowMs` while its shard is crowded is handed, still running, to the timer's slots and its
   * job ends: a stalling receiver holds a BullMQ slot for `slowMs`, not for the whole deadline.
   */
  const drain = async (shard: number, job: Job<DrainJob, DrainOutcome>): Promise<DrainOutcome> => {
    taken(shard);
    const { botId } = job.data;
    // A timer run of the bot here (still ending) owns its entry: the job marks only its own.
    const mine = !here.has(botId);
    if (mine) here.set(botId, "delivering");
    const unmark = () => {
      if (mine && here.get(botId) === "delivering") here.delete(botId);
    };
    const shardCrowded = () => running[shard]! * 2 > perShard;
    /** the hand-over to the retry timer under way or done (see RetryTimer.handOver); none after a refusal. */
    let handing: Promise<HandOver> | undefined;
    let isHanded = false;
    let handed!: () => void;
    const slotFreed = new Promise<{ reason: "handed" }>((resolve) => (handed = () => resolve({ reason: "handed" })));
    // This drain's own stop: the process's, or an unknown hand-over's (the drain ends, its job's
    // normal end sorts the bot out: a bot left `retry_at=run` is adopted by its next drain job).
    const own = new AbortController();
    const onStop = () => own.abort();
    if (stop.signal.aborted) own.abort();
    else stop.signal.addEventListener("abort", onStop, { once: true });
    // One hand-over asked for at a time; true once it is done (BotDrain then asks no more).
    const onSlow = (generation: string) => {
      if (isHanded) return true;
      if (handing || !shardCrowded()) return false;
      const h = (handing = timer.handOver(botId, generation, run));
      void h.then((result) => {
        if (result === "not_handed") {
          if (handing === h) handing = undefined; // asked again at the next slowMs
          return;
        }
        if (result === "unknown") return own.abort();
        isHanded = true;
        unmark();
        here.set(botId, "retrying");
        const gone = () => void (here.get(botId) === "retrying" && here.delete(botId));
        run.then(gone, gone);
        handed();
      });
      return false;
    };
    // Handed over, the drain is the timer's: it ends at its next wait for a retry, as a timer run does.
    const crowded = () => handing !== undefined || shardCrowded();
    // What the job carries is the bot as its epoch opened: used by the job's first run, started
    // within CARRIED_FRESH_MS of the step (a webhook replaced since is found by the confirmation,
    // which keeps the update for the new one; a recheck's job of the same epoch waits longer), not
    // by a run again after its worker died (attemptsStarted counts BullMQ's starts of the job) nor
    // by a job that waited in a backlog.
    const { first } = job.data;
    const fresh =
      first !== undefined &&
      job.attemptsStarted <= 1 &&
      Date.now() - first.at < (deps.firstFreshMs ?? CARRIED_FRESH_MS);
    const start = { mode: "job" as const, ticket: job.data.ticket, first: fresh ? first : undefined };
    const run = new BotDrain({ ...drainDeps, crowded, slow: { ms: deps.slowMs, onSlow } }, botId, start).run(
      own.signal,
    );
    // Handed over, the drain outlives its job: it listens to the stop until its own end.
    const unlisten = () => stop.signal.removeEventListener("abort", onStop);
    run.then(unlisten, unlisten);
    const wasHanded = async () => handing !== undefined && (await handing) === "handed";
    let outcome: DrainOutcome;
    try {
      outcome = await Promise.race([run, slotFreed]);
    } catch (err) {
      if (await wasHanded()) return { reason: "handed" }; // the timer's now: its run logs the failure
      unmark();
      throw err;
    } finally {
      running[shard]!--;
    }
    // A drain that ended while being handed over ends as the timer's run (the timer holds the bot).
    if (await wasHanded()) return { reason: "handed" };
    unmark();
    if (outcome.reason === "backoff" && !(await timer.park(botId, outcome.generation, outcome.retryAt)))
      return { reason: "changed" } as const; // the webhook changed meanwhile: its follow-up drains it
    if (outcome.reason === "held") await timer.adopt(botId, outcome.held);
    return outcome;
  };

  const workers = queue.all.map(
    (q, shard) =>
      new Worker<DrainJob, DrainOutcome>(q.name, (job) => drain(shard, job), {
        connection: deps.connection,
        prefix: keys.queuePrefix(),
        concurrency: perShard,
        lockDuration: deps.lockDurationMs,
        stalledInterval: deps.stalledIntervalMs,
        // A stalled drain (its worker died) is always run again, never failed.
        maxStalledCount: Number.MAX_SAFE_INTEGER,
        // An idle worker blocks this long (s) on its queue's marker before it looks again: a new
        // job wakes it at once, so this is only the idle cost (BullMQ's default looks every 5 s).
        drainDelay: IDLE_BLOCK_S,
        autorun: false,
      }),
  );

  /**
   * A drain that ended with its epoch open (the webhook changed, SIGTERM, a Redis error) looks at
   * the log again once its job is gone, and schedules the epoch's next job. One that closed its
   * epoch ("empty") needs none: an append after the close opened the next epoch, with its own
   * job. A bot the retry timer holds is the timer's: a job that found it "held" looks again only
   * in case the timer let it go meanwhile (its ask for the epoch's job found this one running).
   */
  const follow = (botId: string, outcome: DrainOutcome["reason"] | "failed", retryAt?: number) => {
    if (outcome === "empty" || outcome === "backoff" || outcome === "handed") return;
    void track(queue.request(botId, { cause: "recheck", redis, retryAt, unlessHeld: outcome === "held" }));
  };
  /** A request in flight, awaited on close. */
  function track(p: Promise<void>): Promise<void> {
    followUps.add(p);
    void p.finally(() => followUps.delete(p));
    return p;
  }
  for (const worker of workers) {
    worker.on("completed", (job, outcome) => {
      metrics.drains.inc({ reason: outcome.reason });
      follow(job.data.botId, outcome.reason);
    });
    worker.on("failed", (job, err) => {
      metrics.drains.inc({ reason: "failed" });
      logger.warn({ botId: job?.data.botId, err: { message: err.message } }, "drain failed");
      // Redis trouble, say: the bot's drain is tried again in a second.
      if (job) follow(job.data.botId, "failed", Date.now() + 1000);
    });
    worker.on("stalled", (jobId) => logger.warn({ jobId }, "drain stalled (its worker died); running it again"));
    worker.on("error", (err) => {
      // Closing ends the worker's blocking read by closing its connection: "Connection is
      // closed." then is the orderly stop (Ctrl-C, SIGTERM), not a fault.
      if (stop.signal.aborted && isStorageUnavailable(err)) return;
      logger.error({ err: { message: err.message } }, "worker error");
    });
  }

  let reconciler: ReturnType<typeof startReconciler> | undefined;
  return {
    start() {
      for (const worker of workers) void worker.run();
      timer.start();
      reconciler = startReconciler({ redis, queue, logger, intervalMs: deps.reconcileMs });
    },
    async close() {
      await reconciler?.stop();
      stop.abort();
      await Promise.all([...workers.map((w) => w.close()), timer.close()]);
      await Promise.allSettled([...followUps]);
      await replies.settle();
      await router.close();
      await queue.close();
      await sender.close();
    },
  };
}
