/**
 * Wake latency: from a platform ingest call (a user's message pushed through the gateway) to the
 * bot's waiting getUpdates answering, over N events one after the other. The services run as
 * separate processes on a private redis-server (AOF with fsync always; BENCH_AOF=no turns it off).
 *
 *   node --import tsx bench/run.ts wake-latency    (BENCH_WAKE_EVENTS, default 1000)
 */
import { Agent, request } from "undici";
import { createLogger, createRedis, keys } from "@starpost/shared";
import { userMessage } from "@starpost/testkit";
import { percentile } from "./lib/load.ts";
import { report } from "./lib/report.ts";
import { PLATFORM_TOKEN, startBenchStack } from "./lib/stack.ts";

const N = Number(process.env.BENCH_WAKE_EVENTS ?? 1000);

const stack = await startBenchStack();
const redis = createRedis({ url: stack.redis.url, logger: createLogger("bench", "warn"), role: "bench" });
const agent = new Agent({ keepAliveTimeout: 60_000 });
try {
  const bot = await stack.platform.createBot();
  const ingestUrl = `${stack.gatewayUrl}/platform/v1/bots/${bot.id}/updates`;
  const headers = { authorization: `Bearer ${PLATFORM_TOKEN}`, "content-type": "application/json" };
  const latencies: number[] = [];
  let offset = 0;
  for (let i = 0; i < N + 20; i++) {
    const poll = request(`${stack.gatewayUrl}/bot${bot.token}/getUpdates?timeout=30&offset=${offset}`, { dispatcher: agent }).then(
      async (res) => ((await res.body.json()) as { result: { update_id: number }[] }).result,
    );
    // Push only once the poll is waiting: what is measured is the wake-up, not a ready read.
    while ((await redis.get(keys.pollOwner(bot.id))) === null) await new Promise((r) => setImmediate(r));
    const body = JSON.stringify(userMessage(7, `m${i}`));
    const started = performance.now();
    const ingest = request(ingestUrl, { method: "POST", headers, body, dispatcher: agent }).then((r) => r.body.dump());
    const result = await poll;
    const elapsed = performance.now() - started;
    await ingest;
    if (result.length !== 1) throw new Error(`expected one update, got ${result.length}`);
    offset = result[0]!.update_id + 1;
    if (i >= 20) latencies.push(elapsed); // the first 20 warm the processes up
  }
  report([
    { bench: "wake-latency", name: `p50 ingest -> poll answer (${N} events)`, value: percentile(latencies, 50), unit: "ms" },
    { bench: "wake-latency", name: `p99 ingest -> poll answer (${N} events)`, value: percentile(latencies, 99), unit: "ms", target: "<= 10", targetOn: "value" },
    { bench: "wake-latency", name: "max ingest -> poll answer", value: Math.max(...latencies), unit: "ms" },
  ]);
} finally {
  await agent.close();
  await redis.quit();
  await stack.stop();
}
