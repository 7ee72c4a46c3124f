/**
 * 10,000 bots each holding a getUpdates(timeout=50) on one gateway, which holds them itself:
 * memory (RSS of the gateway and the updates process, which a held poll must not cost anything)
 * and Redis connections, idle and with every poll held. The services run as separate processes
 * on a private redis-server. One descriptor per held poll: 10,000 fit this machine's `ulimit -n`.
 *
 *   node --import tsx bench/run.ts idle-polls    (BENCH_IDLE_POLLS, default 10000)
 */
import { setMaxListeners } from "node:events";
import { Agent, request } from "undici";
import { createLogger, createRedis } from "@starpost/runtime";
import { userMessage } from "@starpost/testkit";
import { inParallel } from "./lib/pool.ts";
import { rssMb } from "./lib/processes.ts";
import { report } from "./lib/report.ts";
import { PLATFORM_TOKEN, startBenchStack } from "./lib/stack.ts";

const N = Number(process.env.BENCH_IDLE_POLLS ?? 10_000);

const bench = await startBenchStack();
const { stack } = bench;
const redis = createRedis({ url: bench.redis.url, logger: createLogger("bench", "warn"), role: "bench" });
const agent = new Agent({ connections: null, keepAliveTimeout: 60_000, headersTimeout: 120_000, bodyTimeout: 120_000 });
const polls: Promise<unknown>[] = [];
const controller = new AbortController();
setMaxListeners(N + 10, controller.signal); // one abort listener per held poll, on purpose
try {
  const measured = stack.processes.filter((p) => p.service === "gateway" || p.service === "updates");
  const waiting = async () => {
    const text = await (await request(`${stack.gatewayUrl}/metrics`)).body.text();
    return Number(/^starpost_polls_waiting(?:\{[^}]*\})? (\d+)/m.exec(text)?.[1] ?? 0);
  };
  const clients = async () => Number(/connected_clients:(\d+)/.exec(await redis.info("clients"))?.[1]);
  const rss = () => measured.reduce((sum, p) => sum + rssMb(p.child.pid!), 0);
  const rssEach = () => measured.map((p) => `${p.name} ${Math.round(rssMb(p.child.pid!))}`).join(", ");

  const t0 = performance.now();
  const bots = await inParallel(N, 32, () => bench.platform.createBot());
  const createSeconds = (performance.now() - t0) / 1000;

  // Warm the front (a few polls) so the idle figures include loaded code, not just startup.
  for (let i = 0; i < 3; i++)
    await request(`${stack.gatewayUrl}/bot${bots[i]!.token}/getUpdates`).then((r) => r.body.dump());
  await new Promise((r) => setTimeout(r, 500));
  const idleRss = rss();
  const idleEach = rssEach();
  const idleClients = await clients();

  const t1 = performance.now();
  for (let i = 0; i < N; i++) {
    const bot = bots[i]!;
    polls.push(
      request(`${stack.gatewayUrl}/bot${bot.token}/getUpdates?timeout=50`, {
        dispatcher: agent,
        signal: controller.signal,
      })
        .then((r) => r.body.dump())
        .catch(() => undefined),
    );
    if (i % 500 === 499) await new Promise((r) => setImmediate(r));
  }
  while ((await waiting()) < N) {
    if (performance.now() - t1 > 60_000) throw new Error(`only ${await waiting()} polls waiting after 60 s`);
    await new Promise((r) => setTimeout(r, 200));
  }
  const openSeconds = (performance.now() - t1) / 1000;
  await new Promise((r) => setTimeout(r, 2000));
  const heldRss = rss();
  const heldEach = rssEach();
  const heldClients = await clients();
  const heldWaiting = await waiting();

  // One of the 10,000 still gets its update promptly.
  const probe = bots[Math.floor(N / 2)]!;
  const t2 = performance.now();
  await request(`${stack.gatewayUrl}/platform/v1/bots/${probe.id}/updates`, {
    method: "POST",
    headers: { authorization: `Bearer ${PLATFORM_TOKEN}`, "content-type": "application/json" },
    body: JSON.stringify(userMessage(5, "hi")),
  }).then((r) => r.body.dump());
  await polls[Math.floor(N / 2)];
  const probeMs = performance.now() - t2;

  controller.abort();
  await Promise.all(polls);
  const t3 = performance.now();
  while ((await waiting()) > 0 && performance.now() - t3 < 30_000) await new Promise((r) => setTimeout(r, 100));
  const freedSeconds = (performance.now() - t3) / 1000;
  const leftWaiting = await waiting();

  report([
    {
      bench: "idle-polls",
      name: `polls held by one gateway`,
      value: heldWaiting,
      unit: "polls",
      target: `>= ${N}`,
      targetOn: "value",
    },
    {
      bench: "idle-polls",
      name: "RSS gateway + updates, idle",
      value: idleRss,
      unit: "MB",
      note: `MB: ${idleEach}`,
    },
    {
      bench: "idle-polls",
      name: `RSS gateway + updates, ${N} polls held`,
      value: heldRss,
      unit: "MB",
      note: `MB: ${heldEach}`,
    },
    {
      bench: "idle-polls",
      name: `extra RSS for ${N} held polls`,
      value: heldRss - idleRss,
      unit: "MB",
      target: `<= ${(120 * N) / 10_000}`,
      targetOn: "value",
    },
    { bench: "idle-polls", name: "RSS per held poll", value: ((heldRss - idleRss) * 1024) / N, unit: "KB" },
    { bench: "idle-polls", name: "Redis connections, idle", value: idleClients, unit: "conns" },
    {
      bench: "idle-polls",
      name: `Redis connections, ${N} polls held`,
      value: heldClients,
      unit: "conns",
      target: `<= ${idleClients}`,
      targetOn: "value",
    },
    { bench: "idle-polls", name: "one of them answered after its update was pushed", value: probeMs, unit: "ms" },
    {
      bench: "idle-polls",
      name: `time to open ${N} polls`,
      value: openSeconds,
      unit: "s",
      note: `bots created in ${createSeconds.toFixed(1)} s`,
    },
    {
      bench: "idle-polls",
      name: "time until every waiter was freed after the clients left",
      value: freedSeconds,
      unit: "s",
      note: `${leftWaiting} left`,
    },
  ]);
} finally {
  controller.abort();
  await agent.close().catch(() => undefined);
  await redis.quit();
  await bench.stop();
}
