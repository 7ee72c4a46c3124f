/**
 * How starpost grows: Redis memory and ingest throughput from 1 to 10,000 bots, and Redis memory
 * from 1k to 100k pending updates of one bot. Memory should be flat per bot and linear in pending.
 *
 *   node --import tsx bench/run.ts scaling
 */
import { Redis } from "ioredis";
import { userMessage } from "@starpost/testkit";
import { inParallel } from "./lib/pool.ts";
import { report, type Figure } from "./lib/report.ts";
import { startBenchStack } from "./lib/stack.ts";

const bench = await startBenchStack();
const { platform } = bench;
const client = new Redis(bench.redis.url);
const usedMemory = async () => Number(/used_memory:(\d+)/.exec(await client.info("memory"))![1]);
const figures: Figure[] = [];
try {
  const bots: { id: number }[] = [];
  const base = await usedMemory();
  let firstRate: number | undefined;
  for (const target of [1, 100, 1000, 10_000]) {
    bots.push(...(await inParallel(target - bots.length, 32, () => platform.createBot())));
    // Every bot gets at least one update; 5,000 updates at least, spread round-robin.
    const count = Math.max(5000, bots.length);
    const before = await usedMemory();
    const started = performance.now();
    await inParallel(count, 32, (i) =>
      platform.pushUpdate(bots[i % bots.length]!.id, userMessage(5000 + (i % 100), "hello")),
    );
    const rate = count / ((performance.now() - started) / 1000);
    const after = await usedMemory();
    // Flat per bot: the rate with many bots next to the rate with one (ratio near 1).
    firstRate ??= rate;
    figures.push({
      bench: "scaling",
      name: `${target} bots: ingest, ${count} single-update calls`,
      value: rate,
      unit: "updates/s",
      ceiling: { name: "1 bot updates/s", value: firstRate },
      ratio: rate / firstRate,
    });
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
  let firstPerUpdate: number | undefined;
  for (const target of [1000, 10_000, 100_000]) {
    const t0 = performance.now();
    const count = target - pushed;
    await inParallel(count / 1000, 4, () =>
      platform.pushUpdate(
        one.id,
        Array.from({ length: 1000 }, (_, n) => userMessage(6000 + (n % 100), "x".repeat(40))),
      ),
    );
    pushed = target;
    const rate = count / ((performance.now() - t0) / 1000);
    const mem = await usedMemory();
    // Linear in pending: the same bytes per update at 100k as at 1k (ratio near 1).
    const perUpdate = (mem - start) / target;
    firstPerUpdate ??= perUpdate;
    figures.push({
      bench: "scaling",
      name: `${target} pending updates of one bot: Redis memory per update`,
      value: perUpdate,
      unit: "bytes",
      ceiling: { name: "at 1k, bytes", value: firstPerUpdate },
      ratio: perUpdate / firstPerUpdate,
      note: `ingest in batches of 1000: ${Math.round(rate)} updates/s`,
    });
  }
} finally {
  await client.quit();
  await bench.stop();
}
report(figures);
