import { Worker, type Job } from "bullmq";
import type { FastifyInstance } from "fastify";
import type { Redis } from "ioredis";
import { keys } from "@starpost/shared";
import { ChannelRouter, OwnEndpoints, Registry, type Logger } from "@starpost/runtime";
import { createDeliveryQueue, type DrainJob } from "@starpost/update-log";
import { createHttpServer, registerOps, type ServiceClient } from "@starpost/http";
import { WORKER_BUSY, WORKER_BUSY_EVERY_MS } from "./busy.ts";
import { WebhookSender, type SenderOptions } from "./delivery/sender.ts";
import { TargetGuard } from "./delivery/target-guard.ts";
import { BotDrain, type DrainOutcome } from "./drain/bot-drain.ts";
import { RetryTimer } from "./drain/retry-timer.ts";
import { WebhookChanges } from "./drain/webhook-changes.ts";
import { workerMetrics } from "./metrics.ts";
import { startReconciler } from "./reconciler.ts";
import { replyMethodRunner } from "./reply-method.ts";

/** How long an idle BullMQ worker blocks for (one per queue shard per process). */
const IDLE_BLOCK_S = 30;

export interface WorkerDeps {
  redis: Redis;
  logger: Logger;
  registry: Registry;
}

/** The worker's small HTTP face: /healthz, /readyz and /metrics for operators. */
export async function buildOpsApp(deps: WorkerDeps): Promise<FastifyInstance> {
  const app = createHttpServer(deps.logger);
  registerOps(app, { registry: deps.registry, ready: async () => (await deps.redis.ping()) === "PONG" });
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
  sender: SenderOptions;
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
    run: (botId, signal) => new BotDrain({ ...drainDeps, crowded: () => true }, botId, "retry").run(signal),
    request: (botId) => track(queue.request(botId, { cause: "appended", pending: true })),
  });

  /**
   * Runs the bot's drain job. A drain that ends waiting for a retry hands the bot to the retry
   * timer (one timer entry per failing bot, not a job per attempt); a drain that finds the bot
   * held by the timer leaves it to the timer.
   */
  const drain = async (shard: number, job: Job<DrainJob, DrainOutcome>) => {
    taken(shard);
    const crowded = () => running[shard]! * 2 > perShard;
    let outcome: DrainOutcome;
    try {
      outcome = await new BotDrain({ ...drainDeps, crowded }, job.data.botId).run(stop.signal);
    } finally {
      running[shard]!--;
    }
    if (outcome.reason === "backoff" && !(await timer.park(job.data.botId, outcome.generation, outcome.retryAt)))
      return { reason: "changed" } as const; // the webhook changed meanwhile: its follow-up drains it
    if (outcome.reason === "held") await timer.adopt(job.data.botId, outcome.held);
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
   * An append made while a drain was running found the job and was deduplicated away, so once
   * the job is gone, look at the log again and schedule the next drain. A bot the retry timer
   * holds is the timer's: no follow-up.
   */
  const follow = (botId: string, outcome: DrainOutcome, retryAt?: number) => {
    if (outcome.reason === "backoff" || outcome.reason === "held") return;
    void track(queue.request(botId, { cause: "recheck", redis, retryAt }));
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
      follow(job.data.botId, outcome);
    });
    worker.on("failed", (job, err) => {
      metrics.drains.inc({ reason: "failed" });
      logger.warn({ botId: job?.data.botId, err: { message: err.message } }, "drain failed");
      // Redis trouble, say: the bot's drain is tried again in a second.
      if (job) follow(job.data.botId, { reason: "empty" }, Date.now() + 1000);
    });
    worker.on("stalled", (jobId) => logger.warn({ jobId }, "drain stalled (its worker died); running it again"));
    worker.on("error", (err) => logger.error({ err: { message: err.message } }, "worker error"));
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
