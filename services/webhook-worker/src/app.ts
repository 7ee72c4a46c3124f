import { DelayedError, Worker, type Job } from "bullmq";
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
import { WebhookChanges } from "./drain/webhook-changes.ts";
import { workerMetrics } from "./metrics.ts";
import { startReconciler } from "./reconciler.ts";
import { replyMethodRunner } from "./reply-method.ts";

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
  /** BullMQ lock: a killed worker's drain is taken over by another after about lock + stalled interval. */
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

  /**
   * Runs the bot's drain. A drain that ends waiting for a retry puts its own job back as delayed
   * until then: a failing bot costs one timer, the same job, not a new job per attempt.
   */
  const drain = async (shard: number, job: Job<DrainJob, DrainOutcome>, token: string | undefined) => {
    taken(shard);
    const crowded = () => running[shard]! * 2 > perShard;
    let outcome: DrainOutcome;
    try {
      outcome = await new BotDrain({ ...drainDeps, crowded }, job.data.botId).run(stop.signal);
    } finally {
      running[shard]!--;
    }
    if (outcome.reason !== "backoff" || token === undefined) return outcome;
    metrics.drains.inc({ reason: outcome.reason });
    await job.moveToDelayed(outcome.retryAt, token);
    throw new DelayedError();
  };

  const workers = queue.all.map(
    (q, shard) =>
      new Worker<DrainJob, DrainOutcome>(q.name, (job, token) => drain(shard, job, token), {
        connection: deps.connection,
        prefix: keys.queuePrefix(),
        concurrency: perShard,
        lockDuration: deps.lockDurationMs,
        stalledInterval: deps.stalledIntervalMs,
        // A stalled drain (its worker died) is always run again, never failed.
        maxStalledCount: Number.MAX_SAFE_INTEGER,
        autorun: false,
      }),
  );

  /**
   * An append made while a drain was running found the job and was deduplicated away, so once
   * the job is gone, look at the log again and schedule the next drain (at the retry time when
   * the drain ended waiting for one).
   */
  const follow = (botId: string, outcome: DrainOutcome) => {
    const retryAt = outcome.reason === "backoff" ? outcome.retryAt : undefined;
    const p = queue.request(botId, { cause: "recheck", redis, retryAt });
    followUps.add(p);
    void p.finally(() => followUps.delete(p));
  };
  for (const worker of workers) {
    worker.on("completed", (job, outcome) => {
      metrics.drains.inc({ reason: outcome.reason });
      follow(job.data.botId, outcome);
    });
    worker.on("failed", (job, err) => {
      metrics.drains.inc({ reason: "failed" });
      logger.warn({ botId: job?.data.botId, err: { message: err.message } }, "drain failed");
      if (job) follow(job.data.botId, { reason: "backoff", retryAt: Date.now() + 1000 });
    });
    worker.on("stalled", (jobId) => logger.warn({ jobId }, "drain stalled (its worker died); running it again"));
    worker.on("error", (err) => logger.error({ err: { message: err.message } }, "worker error"));
  }

  let reconciler: ReturnType<typeof startReconciler> | undefined;
  return {
    start() {
      for (const worker of workers) void worker.run();
      reconciler = startReconciler({ redis, queue, logger, intervalMs: deps.reconcileMs });
    },
    async close() {
      await reconciler?.stop();
      stop.abort();
      await Promise.all(workers.map((w) => w.close()));
      await Promise.allSettled([...followUps]);
      await replies.settle();
      await router.close();
      await queue.close();
      await sender.close();
    },
  };
}
