/**
 * getUpdates with timeout 0 through the gateway, on an empty queue and on a full one (limit 100,
 * nothing confirmed so every call reads 100 updates), against the bare fastify ceiling measured
 * just before with the same load generator settings.
 *
 *   node --import tsx bench/run.ts get-updates
 */
import { userMessage } from "@starpost/testkit";
import { ceilings, cpuPerCallFigure, floorFigures } from "./lib/ceiling.ts";
import { autocannon, type LoadResult } from "./lib/load.ts";
import { report } from "./lib/report.ts";
import { startBenchStack } from "./lib/stack.ts";

const CONNECTIONS = 64;
const cs = await ceilings({ connections: CONNECTIONS });
const ceiling = cs.bare;

const bench = await startBenchStack();
let e: LoadResult, f: LoadResult;
try {
  const empty = await bench.platform.createBot();
  const full = await bench.platform.createBot();
  for (let i = 0; i < 10; i++) {
    await bench.platform.pushUpdate(
      full.id,
      Array.from({ length: 100 }, (_, n) => userMessage(1000 + n, `message ${i}-${n}`)),
    );
  }
  const cpuOf = { gateway: bench.pid("gateway"), updates: bench.pid("updates"), redis: bench.redis.process.pid! };
  e = await autocannon({
    url: `${bench.gatewayUrl}/bot${empty.token}/getUpdates?timeout=0`,
    connections: CONNECTIONS,
    cpuOf,
  });
  f = await autocannon({
    url: `${bench.gatewayUrl}/bot${full.token}/getUpdates?timeout=0&limit=100`,
    connections: CONNECTIONS,
  });
} finally {
  await bench.stop();
}

const c = { name: "bare fastify req/s", value: ceiling.rps };
report([
  {
    bench: "get-updates",
    name: `empty queue, timeout 0 (${CONNECTIONS} conns)`,
    value: e.rps,
    unit: "req/s",
    ceiling: c,
    ratio: e.rps / ceiling.rps,
    target: ">= 0.35",
    targetOn: "ratio",
    note: `p50 ${e.p50} ms, p99 ${e.p99} ms, non-2xx ${e.non2xx}`,
  },
  ...floorFigures("get-updates", "empty getUpdates", e, cs, ">= 0.6"),
  { ...cpuPerCallFigure("get-updates", "empty getUpdates", e, ceiling), target: "<= 100" },
  {
    ...cpuPerCallFigure("get-updates", "empty getUpdates", e, cs.tcp, "floor"),
    name: "CPU per call vs the TCP two-hop floor",
  },
  {
    bench: "get-updates",
    name: `full queue, limit 100 (${CONNECTIONS} conns)`,
    value: f.rps,
    unit: "req/s",
    ceiling: c,
    ratio: f.rps / ceiling.rps,
    note: `${Math.round(f.rps * 100)} updates/s read; p99 ${f.p99} ms, non-2xx ${f.non2xx}`,
  },
]);
