/**
 * getUpdates with timeout 0 through the gateway, on an empty queue and on a full one (limit 100,
 * nothing confirmed so every call reads 100 updates), against the bare fastify ceiling.
 */
import { Platform, startProcessStack, startRedis, stopProcess, userMessage } from "@starpost/testkit";
import { autocannon } from "./lib/load.ts";
import { startScript } from "./lib/processes.ts";
import { report } from "./lib/report.ts";

const PLATFORM_TOKEN = "bench-platform-token-0123456789";

const bare = await startScript("./bare-server.ts");
const ceiling = await autocannon({ url: `http://127.0.0.1:${bare.port}/`, connections: 64 });
await stopProcess(bare.child);

const redis = await startRedis({ appendonly: true });
const stack = await startProcessStack({ redisUrl: redis.url, workers: 1, env: { PLATFORM_TOKEN, LOG_LEVEL: "warn" } });
const platform = new Platform(stack.gatewayUrl, PLATFORM_TOKEN);
const empty = await platform.createBot();
const full = await platform.createBot();
for (let i = 0; i < 10; i++) {
  await platform.pushUpdate(full.id, Array.from({ length: 100 }, (_, n) => userMessage(1000 + n, `message ${i}-${n}`)));
}

const e = await autocannon({ url: `${stack.gatewayUrl}/bot${empty.token}/getUpdates?timeout=0`, connections: 64 });
const f = await autocannon({ url: `${stack.gatewayUrl}/bot${full.token}/getUpdates?timeout=0&limit=100`, connections: 64 });
await stack.stop();
await redis.stop();

const c = { name: "bare fastify req/s", value: ceiling.rps };
report([
  { bench: "get-updates", name: "empty queue, timeout 0 (64 conns)", value: e.rps, unit: "req/s", ceiling: c, ratio: e.rps / ceiling.rps, target: ">= 0.35", targetOn: "ratio", note: `p50 ${e.p50} ms, p99 ${e.p99} ms, non-2xx ${e.non2xx}` },
  { bench: "get-updates", name: "full queue, limit 100 (64 conns)", value: f.rps, unit: "req/s", ceiling: c, ratio: f.rps / ceiling.rps, note: `${Math.round(f.rps * 100)} updates/s read; p99 ${f.p99} ms, non-2xx ${f.non2xx}` },
]);
