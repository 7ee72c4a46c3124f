/**
 * The starpost under test: every service of docker-compose.yml its own OS process (the compose
 * topology, through @starpost/testkit) on a private redis-server with the append-only file on and
 * fsync always, as durable as starpost can be run. BENCH_AOF=no turns the file off to show what
 * durability costs.
 */
import { startLocalStack, type LocalStack } from "@starpost/testkit";

export const PLATFORM_TOKEN = "bench-platform-token-0123456789";

export type BenchStack = LocalStack;

export function startBenchStack(opts: { workers?: number; env?: Record<string, string>; aof?: "always" | "everysec" | "no"; nodeArgs?: string[]; dist?: string } = {}): Promise<BenchStack> {
  const aof = opts.aof ?? (process.env.BENCH_AOF === "no" ? "no" : "always");
  return startLocalStack({
    appendonly: aof !== "no",
    appendfsync: aof === "no" ? undefined : aof,
    platformToken: PLATFORM_TOKEN,
    workers: opts.workers ?? 0,
    nodeArgs: opts.nodeArgs,
    dist: opts.dist,
    env: { LOG_LEVEL: "warn", ...opts.env },
  });
}

/** Whether the Redis under test writes an append-only file, for the figures' names. */
export const durability = () => (process.env.BENCH_AOF === "no" ? "no AOF" : "AOF fsync always");
