/**
 * How starpost grows: Redis memory and ingest throughput from 1 to 10,000 bots, and Redis memory
 * from 1k to 100k pending updates of one bot. Memory should be flat per bot and linear in pending.
 */
import { Redis } from "ioredis";
import { Platform, startProcessStack, startRedis, userMessage } from "@starpost/testkit";
import { report, type Figure } from "./lib/report.ts";

const PLATFORM_TOKEN = "bench-platform-token-0123456789";
const redis = await startRedis({ appendonly: true });
const stack = await startProcessStack({ redisUrl: redis.url, workers: 1, env: { PLATFORM_TOKEN, LOG_LEVEL: "warn" } });
const platform = new Platform(stack.gatewayUrl, PLATFORM_TOKEN);
const client = new Redis(redis.url);
const usedMemory = async () => Number(/used_memory:(\d+)/.exec(await client.info("memory"))![1]);

async function parallel<T>(n: number, width: number, fn: (i: number) => Promise<T>): Promise<T[]> {
  const out: T[] = new Array(n);
  let next = 0;
  await Promise.all(Array.from({ length: width }, async () => {
    while (next < n) {
      const i = next++;
      out[i] = await fn(i);
    }
  }));
  return out;
}

const figures: Figure[] = [];
const bots: { id: number }[] = [];
const base = await usedMemory();
for (const target of [1, 100, 1000, 10_000]) {
  bots.push(...(await parallel(target - bots.length, 32, () => platform.createBot())));
  // Every bot gets at least one update; 5,000 updates at least, spread round-robin.
  const count = Math.max(5000, bots.length);
  const before = await usedMemory();
  const started = performance.now();
  await parallel(count, 32, (i) => platform.pushUpdate(bots[i % bots.length]!.id, userMessage(5000 + (i % 100), "hello")));
  const rate = count / ((performance.now() - started) / 1000);
  const after = await usedMemory();
  figures.push({ bench: "scaling", name: `${target} bots: ingest, ${count} single-update calls`, value: rate, unit: "updates/s" });
  figures.push({
    bench: "scaling",
    name: `${target} bots: Redis memory per bot`,
    value: (after - base) / bots.length,
    unit: "bytes",
    note: `bot, chats and ${count / bots.length} pending update(s) each; ${Math.round((after - before) / count)} B per pending update`,
  });
}

const one = await platform.createBot();
let pushed = 0;
const start = await usedMemory();
for (const target of [1000, 10_000, 100_000]) {
  const t0 = performance.now();
  const count = target - pushed;
  await parallel(count / 1000, 4, () => platform.pushUpdate(one.id, Array.from({ length: 1000 }, (_, n) => userMessage(6000 + (n % 100), "x".repeat(40)))));
  pushed = target;
  const rate = count / ((performance.now() - t0) / 1000);
  const mem = await usedMemory();
  figures.push({ bench: "scaling", name: `${target} pending updates of one bot: Redis memory per update`, value: (mem - start) / target, unit: "bytes", note: `ingest in batches of 1000: ${Math.round(rate)} updates/s` });
}

await client.quit();
await stack.stop();
await redis.stop();
report(figures);
