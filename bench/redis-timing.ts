/**
 * What timing every Redis command costs (starpost_redis_command_duration_seconds, redis-latency.ts):
 * the same auto-pipelined GETs through a client built with a registry (timed) and one without,
 * in alternating rounds on one private redis-server, and the throughput of each.
 *
 *   node --import tsx bench/run.ts redis-timing    (BENCH_REDIS_TIMING_OPS, default 200000 per client)
 */
import { createLogger, createRedis, Registry, type Redis } from "@starpost/runtime";
import { startRedis } from "@starpost/testkit";
import { report } from "./lib/report.ts";

const OPS = Number(process.env.BENCH_REDIS_TIMING_OPS ?? 200_000);
const BATCH = 1000;
const ROUNDS = 10;

const server = await startRedis();
const logger = createLogger("bench", "warn");
const timed = createRedis({ url: server.url, logger, registry: new Registry("bench"), role: "timed" });
const plain = createRedis({ url: server.url, logger, role: "plain" });
await Promise.all([timed.set("k", "v"), plain.set("k", "v")]);

/** Seconds for `n` GETs, BATCH at a time. */
async function run(client: Redis, n: number): Promise<number> {
  const started = performance.now();
  for (let done = 0; done < n; done += BATCH) {
    const batch: Promise<unknown>[] = [];
    for (let i = 0; i < BATCH; i++) batch.push(client.get("k"));
    await Promise.all(batch);
  }
  return (performance.now() - started) / 1000;
}

await run(timed, OPS / ROUNDS); // warm up both
await run(plain, OPS / ROUNDS);
let timedS = 0;
let plainS = 0;
// Alternating which goes first, so neither gains from the other's warm-up or GC.
for (let r = 0; r < ROUNDS; r++) {
  if (r % 2 === 0) {
    timedS += await run(timed, OPS / ROUNDS);
    plainS += await run(plain, OPS / ROUNDS);
  } else {
    plainS += await run(plain, OPS / ROUNDS);
    timedS += await run(timed, OPS / ROUNDS);
  }
}
await Promise.all([timed.quit(), plain.quit()]);
await server.stop();

const plainRate = OPS / plainS;
const timedRate = OPS / timedS;
report([
  {
    bench: "redis-timing",
    name: "GETs/s, timed client",
    value: timedRate,
    unit: "ops/s",
    target: ">= 0.9",
    targetOn: "ratio",
    ceiling: { name: "untimed client", value: plainRate },
    ratio: timedRate / plainRate,
  },
  {
    bench: "redis-timing",
    name: "timing cost per command",
    value: Math.max(0, ((timedS - plainS) / OPS) * 1e6),
    unit: "µs",
  },
]);
