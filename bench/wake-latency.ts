/**
 * Wake latency: from a platform ingest call (a user's message pushed through the gateway) to the
 * bot's waiting getUpdates answering, over N events one after the other. The services run as
 * separate processes on a private redis-server (AOF with fsync always; BENCH_AOF=no turns it off).
 *
 *   node --import tsx bench/run.ts wake-latency    (BENCH_WAKE_EVENTS, default 1000)
 */
import { createLogger, createRedis } from "@starpost/shared";
import { percentile } from "./lib/load.ts";
import { report } from "./lib/report.ts";
import { startBenchStack } from "./lib/stack.ts";
import { measureWakes } from "./lib/wake.ts";

const N = Number(process.env.BENCH_WAKE_EVENTS ?? 1000);

const stack = await startBenchStack();
const redis = createRedis({ url: stack.redis.url, logger: createLogger("bench", "warn"), role: "bench" });
try {
  const bot = await stack.platform.createBot();
  const latencies = await measureWakes(stack.gatewayUrl, redis, bot, N);
  report([
    {
      bench: "wake-latency",
      name: `p50 ingest -> poll answer (${N} events)`,
      value: percentile(latencies, 50),
      unit: "ms",
    },
    {
      bench: "wake-latency",
      name: `p99 ingest -> poll answer (${N} events)`,
      value: percentile(latencies, 99),
      unit: "ms",
      target: "<= 5",
      targetOn: "value",
    },
    { bench: "wake-latency", name: "max ingest -> poll answer", value: Math.max(...latencies), unit: "ms" },
  ]);
} finally {
  await redis.quit();
  await stack.stop();
}
