/**
 * What every starpost process runs on: the logger, Redis connections, metrics, shutdown, the shard
 * channels, the Lua bridge, and the records several services read and write (bots, faults, the
 * request log, webhook settings, the processes' own endpoints).
 */
export * from "./activity.ts";
export * from "./bot-registry.ts";
export * from "./chat-store.ts";
export * from "./faults.ts";
export * from "./logger.ts";
export * from "./lua/index.ts";
export * from "./metrics.ts";
export * from "./own-endpoints.ts";
export * from "./channel-router.ts";
export * from "./redis.ts";
export * from "./redis-latency.ts";
export * from "./request-log.ts";
export * from "./shutdown.ts";
export * from "./storage-outage.ts";
export * from "./webhook-hosts.ts";
export * from "./webhook-store.ts";
export * from "./write-refusals.ts";
