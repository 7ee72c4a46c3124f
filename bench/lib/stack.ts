/**
 * The starpost under test: every service of docker-compose.yml its own OS process (the compose
 * topology, through @starpost/testkit) on a private redis-server with the append-only file on and
 * fsync always, as durable as starpost can be run. BENCH_AOF=no turns the file off to show what
 * durability costs.
 */
import { Platform, startProcessStack, startRedis, type ProcessStack, type RedisServer } from "@starpost/testkit";

export const PLATFORM_TOKEN = "bench-platform-token-0123456789";

export interface BenchStack {
  redis: RedisServer;
  stack: ProcessStack;
  gatewayUrl: string;
  platform: Platform;
  /** the process id of a service's first process. */
  pid(service: string): number;
  stop(): Promise<void>;
}

export async function startBenchStack(opts: { workers?: number; env?: Record<string, string> } = {}): Promise<BenchStack> {
  const redis = await startRedis({ appendonly: process.env.BENCH_AOF !== "no" });
  try {
    const stack = await startProcessStack({
      redisUrl: redis.url,
      workers: opts.workers ?? 0,
      env: { PLATFORM_TOKEN, LOG_LEVEL: "warn", ...opts.env },
    });
    return {
      redis,
      stack,
      gatewayUrl: stack.gatewayUrl,
      platform: new Platform(stack.gatewayUrl, PLATFORM_TOKEN),
      pid: (service) => stack.processes.find((p) => p.service === service)!.child.pid!,
      async stop() {
        await stack.stop();
        await redis.stop();
      },
    };
  } catch (err) {
    await redis.stop();
    throw err;
  }
}

/** Whether the Redis under test writes an append-only file, for the figures' names. */
export const durability = () => (process.env.BENCH_AOF === "no" ? "no AOF" : "AOF fsync always");
