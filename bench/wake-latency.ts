/**
 * Wake latency: from a platform ingest call (a user's message pushed through the gateway) to the
 * bot's waiting getUpdates answering, over N events one after the other. The services run as
 * separate processes on a private redis-server (AOF with fsync always; BENCH_AOF=no turns it off).
 *
 * With fsync always, every wake waits for the append's fdatasync (Redis answers and publishes only
 * once the write is on disk, so a bot never sees an update a crash could take back). The same run
 * therefore also times fdatasync of a 200-byte append in the Redis data directory: that is the
 * floor under the wake latency on this disk.
 *
 * A push alone (nothing waiting), timed after the wakes and as many pushes alone to warm its path,
 * is the other floor figure: its p99 against fdatasync's p99 + 3 ms, and the held poll's against
 * the push's + 1 ms. The same pushes through the two-hop floor with one Lua step on a Redis as
 * durable show what the topology itself takes. The services run with --trace-gc-nvp: the updates
 * service's scavenges during the timed pushes are reported (their pause and what each copied).
 *
 *   node --import tsx bench/run.ts wake-latency    (BENCH_WAKE_EVENTS, default 1000; BENCH_WAKE_WARMUP)
 */
import { closeSync, fdatasyncSync, openSync, rmSync, writeSync } from "node:fs";
import { join } from "node:path";
import { createLogger, createRedis } from "@starpost/runtime";
import { Agent, request } from "undici";
import { stopProcess, userMessage } from "@starpost/testkit";
import { withFloorRedis } from "./lib/ceiling.ts";
import { percentile } from "./lib/load.ts";
import { startScript } from "./lib/processes.ts";
import { report } from "./lib/report.ts";
import { startBenchStack } from "./lib/stack.ts";
import { measurePushes, measureWakes } from "./lib/wake.ts";

const N = Number(process.env.BENCH_WAKE_EVENTS ?? 1000);

/** fdatasync after each of `n` 200-byte appends to a file in `dir`, in ms. */
function fsyncLatencies(dir: string, n: number): number[] {
  const path = join(dir, "fsync-probe");
  const fd = openSync(path, "a");
  const line = Buffer.alloc(200, "x");
  const out: number[] = [];
  try {
    for (let i = 0; i < n; i++) {
      const t = performance.now();
      writeSync(fd, line);
      fdatasyncSync(fd);
      out.push(performance.now() - t);
    }
  } finally {
    closeSync(fd);
    rmSync(path, { force: true });
  }
  return out;
}

/**
 * The same pushes one at a time through the two-hop floor whose service runs one Lua step on a
 * Redis as durable as the stack's (bench/lib/two-hop.ts), after as many to warm it: the latency of
 * the design's topology with nothing of starpost in it.
 */
async function floorPushLatencies(n: number): Promise<number[]> {
  return withFloorRedis(async (redis) => {
    const service = await startScript("./two-hop.ts", { ROLE: "service", REDIS_URL: redis.url });
    const gateway = await startScript("./two-hop.ts", { ROLE: "gateway", SERVICE_PORT: String(service.port) });
    const agent = new Agent({ keepAliveTimeout: 60_000 });
    const out: number[] = [];
    try {
      for (let i = 0; i < 2 * n; i++) {
        const body = JSON.stringify(userMessage(7, `p${i}`));
        const started = performance.now();
        await request(`http://127.0.0.1:${gateway.port}/`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body,
          dispatcher: agent,
        }).then((r) => r.body.dump());
        if (i >= n) out.push(performance.now() - started);
      }
    } finally {
      await agent.close();
      await stopProcess(gateway.child);
      await stopProcess(service.child);
    }
    return out;
  });
}

/**
 * The updates service's scavenges while the pushes alone are timed (`--trace-gc-nvp`): each one
 * stops that process, and its pause grows with what survives it. A push alone leaves nothing
 * behind, so what survives should be only the push in flight.
 */
const scavenges: { pause: number; copied: number }[] = [];
let timing = false;
const field = (line: string, name: string) => Number(new RegExp(` ${name}=([0-9.]+)`).exec(line)?.[1] ?? NaN);
const stack = await startBenchStack({
  nodeArgs: ["--trace-gc-nvp"],
  onLine: (name, line) => {
    if (timing && name === "updates" && line.includes(" gc=s "))
      scavenges.push({
        pause: field(line, "pause"),
        copied: field(line, "promoted") + field(line, "new_space_survived"),
      });
  },
});
const redis = createRedis({ url: stack.redis.url, logger: createLogger("bench", "warn"), role: "bench" });
try {
  const bot = await stack.platform.createBot();
  const { wakes: latencies, pushes: pushesPolled } = await measureWakes(stack.gatewayUrl, redis, bot, N);
  // As the floor below: N pushes alone to warm that path (the wakes warmed the one where a poll
  // waits; V8 still compiles this one's), then N timed.
  await measurePushes(stack.gatewayUrl, bot, N);
  timing = true;
  const pushes = await measurePushes(stack.gatewayUrl, bot, N);
  timing = false;
  const fsyncs = fsyncLatencies(stack.redis.dir, N);
  const floor = await floorPushLatencies(N);
  const [pushP99, fsyncP99] = [percentile(pushes, 99), percentile(fsyncs, 99)];
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
      target: `<= ${(pushP99 + 1).toFixed(2)} (a push alone's p99 + 1 ms)`,
      targetOn: "value",
    },
    { bench: "wake-latency", name: "max ingest -> poll answer", value: Math.max(...latencies), unit: "ms" },
    {
      bench: "wake-latency",
      name: `p50 a push alone, answered (${N} pushes after ${N} to warm up, nothing waiting)`,
      value: percentile(pushes, 50),
      unit: "ms",
    },
    {
      bench: "wake-latency",
      name: "p99 a push alone, answered",
      value: pushP99,
      unit: "ms",
      target: `<= ${(fsyncP99 + 3).toFixed(2)} (fdatasync's p99 + 3 ms)`,
      targetOn: "value",
    },
    {
      bench: "wake-latency",
      name: "a scavenge of the updates service during those pushes, mean pause",
      value: scavenges.reduce((sum, g) => sum + g.pause, 0) / Math.max(1, scavenges.length),
      unit: "ms",
      note: `${scavenges.length} scavenges, ${Math.round(scavenges.reduce((sum, g) => sum + g.copied, 0) / Math.max(1, scavenges.length) / 1024)} KB copied each (survived or promoted)`,
    },
    {
      bench: "wake-latency",
      name: `p99 a push alone through the two-hop floor with one Lua step (${N} after ${N} to warm up)`,
      value: percentile(floor, 99),
      unit: "ms",
      note: `p50 ${percentile(floor, 50).toFixed(2)} ms: the topology with nothing of starpost in it`,
    },
    {
      bench: "wake-latency",
      name: "p99 a push answered while a poll waits (the events above)",
      value: percentile(pushesPolled, 99),
      unit: "ms",
      note: `p50 ${percentile(pushesPolled, 50).toFixed(2)} ms`,
    },
    ...[50, 99].map((p) => ({
      bench: "wake-latency",
      name: `p${p} fdatasync of a 200-byte append, Redis data directory (${N} appends)`,
      value: percentile(fsyncs, p),
      unit: "ms",
    })),
  ]);
} finally {
  await redis.quit();
  await stack.stop();
}
