/**
 * The line a webhook worker logs when one of its delivery queue shards has every slot in use (a
 * drain more for that shard would wait): operators add workers on it, and `npm start` starts its
 * second worker on it. Its own file so the starter reads it without loading the worker.
 */
export const WORKER_BUSY = "webhook worker busy: every slot of a delivery queue shard is in use";

/** Said at most once in this long, per worker process. */
export const WORKER_BUSY_EVERY_MS = 60_000;
