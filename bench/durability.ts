/**
 * What durability costs on the acknowledged write path: platform pushes (POST
 * /platform/v1/bots/:id/updates, one update each, 64 connections) against the same stack on a
 * Redis with the append-only file fsynced on every write (`always`, the compose default), once a
 * second (`everysec`, REDIS_APPENDFSYNC=everysec) and without the file.
 *
 *   node --import tsx bench/run.ts durability
 */
import { autocannon, type LoadResult } from "./lib/load.ts";
import { report, type Figure } from "./lib/report.ts";
import { PLATFORM_TOKEN, startBenchStack } from "./lib/stack.ts";

const CONNECTIONS = 64;
const body = JSON.stringify({
  message: { message_id: 1, chat: { id: 5, type: "private", first_name: "A" }, date: 1, text: "durable?" },
});

async function measure(aof: "always" | "everysec" | "no"): Promise<LoadResult> {
  const bench = await startBenchStack({ aof });
  try {
    const bot = await bench.platform.createBot();
    const r = await autocannon({
      url: `${bench.gatewayUrl}/platform/v1/bots/${bot.id}/updates`,
      method: "POST",
      body,
      headers: { authorization: `Bearer ${PLATFORM_TOKEN}`, "content-type": "application/json" },
      connections: CONNECTIONS,
      cpuOf: { redis: bench.redis.process.pid! },
    });
    if (r.errors > 0 || r.non2xx > 0)
      throw new Error(`pushes (${aof}): ${r.errors} errors, ${r.non2xx} non-2xx answers`);
    return r;
  } finally {
    await bench.stop();
  }
}

const results = { always: await measure("always"), everysec: await measure("everysec"), no: await measure("no") };
const label = { always: "appendfsync always (default)", everysec: "appendfsync everysec", no: "no AOF" };
const figures: Figure[] = [];
for (const mode of ["always", "everysec", "no"] as const) {
  const r = results[mode];
  figures.push({
    bench: "durability",
    name: `platform pushes, ${label[mode]} (${CONNECTIONS} conns)`,
    value: r.rps,
    unit: "req/s",
    ceiling: { name: "no AOF req/s", value: results.no.rps },
    ratio: r.rps / results.no.rps,
    note: `p50 ${r.p50} ms, p99 ${r.p99} ms`,
  });
}
report(figures);
