/**
 * Redis Cluster against one Redis, measured in the same run: ingest (platform pushes), sendInvoice,
 * webhook drain and wake latency, each on one Redis and on a local 3-master, 3-replica cluster
 * (same services, one process each); what REDIS_WAIT_REPLICAS=1 costs on the cluster; and the
 * scaling rows: 1 -> 2 replicas of gateway and updates on the cluster, with CPU per call.
 * Two cores cannot show linear throughput: CPU per call staying flat is the figure that matters.
 * Both modes run without an append-only file, so only the Redis topology differs.
 *
 *   node --import tsx bench/run.ts cluster    (BENCH_SECONDS per load run, default 8)
 */
import { Agent, request } from "undici";
import { createLogger, createRedis } from "@starpost/runtime";
import { botClient, startLocalStack, stopProcess, userMessage, type LocalStack } from "@starpost/testkit";
import { autocannon, percentile, type LoadResult } from "./lib/load.ts";
import { cpuMs, startScript } from "./lib/processes.ts";
import { report, type Figure } from "./lib/report.ts";
import { PLATFORM_TOKEN } from "./lib/stack.ts";
import { measureWakes } from "./lib/wake.ts";

type Mode = "one Redis" | "cluster" | "cluster, WAIT 1";
const DRAIN_UPDATES = Number(process.env.BENCH_CLUSTER_DRAIN ?? 9000);
const WAKE_EVENTS = Number(process.env.BENCH_CLUSTER_WAKES ?? 300);
const invoice = {
  chat_id: 1001,
  title: "Gold",
  description: "A bag of gold",
  payload: "bench",
  currency: "XTR",
  prices: [{ label: "Gold", amount: 100 }],
};
const agent = new Agent({ keepAliveTimeout: 60_000 });
const figures: Figure[] = [];
const PUSH = JSON.stringify(userMessage(7, "hi"));
const platformHeaders = { authorization: `Bearer ${PLATFORM_TOKEN}` };

async function start(mode: Mode, opts: { replicas?: number; workers?: number } = {}): Promise<LocalStack> {
  const n = opts.replicas ?? 1;
  return startLocalStack({
    cluster: mode !== "one Redis",
    exactTopology: true,
    replicas: { gateway: n, updates: n, invoices: n },
    workers: opts.workers ?? 0,
    platformToken: PLATFORM_TOKEN,
    env: { LOG_LEVEL: "warn", ...(mode === "cluster, WAIT 1" ? { REDIS_WAIT_REPLICAS: "1" } : {}) },
  });
}

/** pids whose CPU counts per call: the services and the Redis processes (every cluster node). */
function pids(s: LocalStack, services: string[]): number[] {
  const redis = s.cluster ? s.cluster.nodes.map((n) => n.process.pid!) : [s.redis.process.pid!];
  return [...s.stack.processes.filter((p) => services.includes(p.service)).map((p) => p.child.pid!), ...redis];
}
const cpuOf = (list: number[]) => list.reduce((sum, pid) => sum + cpuMs(pid), 0);

function strict(r: LoadResult, what: string): LoadResult {
  if (r.errors > 0 || r.non2xx > 0) throw new Error(`${what}: ${r.errors} errors, ${r.non2xx} non-2xx answers`);
  return r;
}

/** Load through every gateway at once (one autocannon each); calls/s and CPU µs per call over `measured`. */
async function load(
  s: LocalStack,
  path: (gateway: string) => string,
  body: string,
  measured: number[],
  connections = 32,
  headers: Record<string, string> = {},
) {
  for (const g of s.stack.gatewayUrls)
    await autocannon({ url: path(g), method: "POST", body, headers, connections, seconds: 2, warmupSeconds: 0 });
  const before = cpuOf(measured);
  const runs = await Promise.all(
    s.stack.gatewayUrls.map((g) =>
      autocannon({
        url: path(g),
        method: "POST",
        body,
        headers,
        connections: Math.ceil(connections / s.stack.gatewayUrls.length),
        warmupSeconds: 0,
      }),
    ),
  );
  runs.forEach((r) => strict(r, path("")));
  const total = runs.reduce((a, r) => a + r.total, 0);
  return {
    rps: runs.reduce((a, r) => a + r.rps, 0),
    p99: Math.max(...runs.map((r) => r.p99)),
    cpuUs: ((cpuOf(measured) - before) * 1000) / total,
  };
}

async function ingestAndInvoices(mode: Mode) {
  const s = await start(mode);
  try {
    const bot = await s.platform.createBot();
    await s.platform.putChat(bot.id, { id: invoice.chat_id, type: "private", first_name: "Ann" });
    const ingest = await load(
      s,
      (g) => `${g}/platform/v1/bots/${bot.id}/updates`,
      PUSH,
      pids(s, ["gateway", "updates"]),
      32,
      platformHeaders,
    );
    figures.push({
      bench: "cluster",
      name: `ingest, ${mode}`,
      value: ingest.rps,
      unit: "calls/s",
      note: `p99 ${ingest.p99} ms; CPU µs per call (gateway + updates + Redis) ${Math.round(ingest.cpuUs)}`,
    });
    const send = await load(
      s,
      (g) => `${g}/bot${bot.token}/sendInvoice`,
      JSON.stringify(invoice),
      pids(s, ["gateway", "invoices"]),
    );
    figures.push({
      bench: "cluster",
      name: `sendInvoice, ${mode}`,
      value: send.rps,
      unit: "calls/s",
      note: `p99 ${send.p99} ms; CPU µs per call (gateway + invoices + Redis) ${Math.round(send.cpuUs)}`,
    });
  } finally {
    await s.stop();
  }
}

async function drain(mode: Mode, receiverUrl: string) {
  const s = await start(mode, { workers: 2 });
  const count = async () =>
    ((await (await request(receiverUrl, { dispatcher: agent })).body.json()) as { received: number }).received;
  try {
    const bots = await Promise.all(Array.from({ length: 3 }, () => s.platform.createBot())); // one per master on the cluster
    for (let sent = 0; sent < DRAIN_UPDATES; sent += 1000) {
      const bot = bots[(sent / 1000) % bots.length]!;
      const r = await s.platform.pushUpdate(
        bot.id,
        Array.from({ length: 1000 }, (_, i) => userMessage(1 + (i % 33), `m${sent + i}`)),
      );
      if (r.status !== 200) throw new Error(`ingest failed: ${JSON.stringify(r.body)}`);
    }
    const base = await count();
    const started = performance.now();
    for (const bot of bots)
      await botClient(s.gatewayUrl, bot.token)("setWebhook", { url: `${receiverUrl}/hook`, max_connections: 40 });
    const deadline = Date.now() + 120_000;
    while ((await count()) - base < DRAIN_UPDATES) {
      if (Date.now() > deadline) throw new Error("drain took over 120 s");
      await new Promise((r) => setTimeout(r, 20));
    }
    figures.push({
      bench: "cluster",
      name: `webhook drain, 2 workers, ${mode}`,
      value: DRAIN_UPDATES / ((performance.now() - started) / 1000),
      unit: "updates/s",
      note: `${DRAIN_UPDATES} updates, 3 bots`,
    });
  } finally {
    await s.stop();
  }
}

async function wake(mode: Mode) {
  const s = await start(mode);
  const redis = createRedis({
    url: s.redis?.url ?? "",
    clusterNodes: s.cluster?.clusterNodes,
    logger: createLogger("bench", "warn"),
    role: "bench",
  });
  try {
    const { wakes: latencies } = await measureWakes(s.gatewayUrl, redis, await s.platform.createBot(), WAKE_EVENTS);
    figures.push({
      bench: "cluster",
      name: `wake latency p50, ${mode}`,
      value: percentile(latencies, 50),
      unit: "ms",
      note: `p99 ${percentile(latencies, 99).toFixed(2)} ms over ${WAKE_EVENTS} events`,
    });
  } finally {
    await redis.quit();
    await s.stop();
  }
}

async function scaling(replicas: number) {
  const s = await start("cluster", { replicas });
  try {
    const bots = await Promise.all(Array.from({ length: 3 }, () => s.platform.createBot()));
    // Each gateway pushes to its own bot, so the load also spreads over the masters.
    let n = 0;
    const r = await load(
      s,
      (g) => `${g}/platform/v1/bots/${bots[n++ % bots.length]!.id}/updates`,
      PUSH,
      pids(s, ["gateway", "updates"]),
      64,
      platformHeaders,
    );
    figures.push({
      bench: "cluster",
      name: `ingest on the cluster, ${replicas} replica${replicas > 1 ? "s" : ""} of gateway and updates`,
      value: r.rps,
      unit: "calls/s",
      note: `CPU µs per call (every gateway, updates and Redis node) ${Math.round(r.cpuUs)}`,
    });
  } finally {
    await s.stop();
  }
}

const receiver = await startScript("./receiver.ts");
try {
  for (const mode of ["one Redis", "cluster", "cluster, WAIT 1"] as Mode[]) await ingestAndInvoices(mode);
  for (const mode of ["one Redis", "cluster"] as Mode[]) await drain(mode, `http://127.0.0.1:${receiver.port}`);
  for (const mode of ["one Redis", "cluster"] as Mode[]) await wake(mode);
  for (const replicas of [1, 2]) await scaling(replicas);
  report(figures);
} finally {
  await agent.close();
  await stopProcess(receiver.child, "SIGTERM");
}
