/**
 * starpost at rest with many bots: 20,000 bots registered through the platform API, 2,000 of them
 * with a webhook — 1,500 to a healthy receiver (in this process), 500 to a closed port on
 * 127.0.0.1 — and one update pushed to each of the 2,000, so every failing bot keeps one pending
 * update on the real backoff (2, 4, 8 … s, capped at 60–120 s; WEBHOOK_BACKOFF_SCALE is left at
 * its default 1). The stack is `npm start`'s: every service its own process, 2 webhook workers,
 * a private redis-server (AOF with fsync always; BENCH_AOF=no turns it off).
 *
 * Once the failing bots' retries have settled (BENCH_SCALE_SETTLE_SECONDS after the pushes,
 * default 130: 2 + 4 + … + 64 s of retries are over and every failing bot waits at the 60–120 s
 * cap in BullMQ's delayed set), it measures:
 * - Redis commands per second at rest, over BENCH_SCALE_MEASURE_SECONDS (default 120: one cap,
 *   so the window holds each failing bot's retry about once) with no
 *   traffic at all, and that per failing webhook bot. Counted from INFO commandstats (which, like
 *   total_commands_processed, counts the commands a Lua script runs), less the bench's own INFO;
 *   the top 5 commands by calls/s are printed. A baseline window of BENCH_SCALE_BASELINE_SECONDS
 *   (default 10; 0 skips it), after the webhooks are set and before anything is pushed, shows what
 *   the stack costs at rest with no failing bot.
 *   What one failed delivery costs follows from the failures the workers counted in the window,
 *   and from it the rate once every failing bot waits at the 60–120 s cap.
 * - Redis memory per registered bot: used_memory (less the clients' buffers) after registering
 *   them, less before, ÷ bots.
 * - Then, for another BENCH_SCALE_MEASURE_SECONDS (the rest window stays free of this traffic),
 *   delivery latency to healthy webhook bots while the failing ones wait: one update every 100 ms
 *   to a random healthy bot, from the start of the push call to the receiver's receipt (one clock).
 *
 *   node --import tsx bench/run.ts scale-rest    (BENCH_SCALE_BOTS, default 20000)
 */
import { Redis } from "ioredis";
import { Agent, request } from "undici";
import { DELIVERY_SHARDS, keys } from "@starpost/shared";
import { freePort, startReceiver, userMessage } from "@starpost/testkit";
import { percentile } from "./lib/load.ts";
import { inParallel } from "./lib/pool.ts";
import { report } from "./lib/report.ts";
import { durability, startBenchStack } from "./lib/stack.ts";

const BOTS = Number(process.env.BENCH_SCALE_BOTS ?? 20_000);
const HEALTHY = 1_500;
const FAILING = 500;
const SETTLE_SECONDS = Number(process.env.BENCH_SCALE_SETTLE_SECONDS ?? 130);
const MEASURE_SECONDS = Number(process.env.BENCH_SCALE_MEASURE_SECONDS ?? 120);
const BASELINE_SECONDS = Number(process.env.BENCH_SCALE_BASELINE_SECONDS ?? 10);
const PROBE_EVERY_MS = 100;
const IN_FLIGHT = 64;
if (BOTS < HEALTHY + FAILING) throw new Error(`BENCH_SCALE_BOTS must be at least ${HEALTHY + FAILING}`);

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const log = (line: string) => process.stdout.write(`${line}\n`);

const bench = await startBenchStack({ workers: 2 });
const redis = new Redis(bench.redis.url);
const agent = new Agent({ keepAliveTimeout: 60_000, connections: IN_FLIGHT });

/** Push start time of each probe update not received yet, by its text; its latency once received. */
const probeSent = new Map<string, number>();
const latencies: number[] = [];
const receiver = await startReceiver({
  answer: (r) => {
    const text: unknown = r.update?.message?.text;
    const sent = typeof text === "string" ? probeSent.get(text) : undefined;
    if (sent === undefined) return undefined;
    latencies.push(performance.now() - sent);
    probeSent.delete(text as string);
    return undefined;
  },
});

const field = (text: string, name: string) => Number(new RegExp(`^${name}:(\\d+)`, "m").exec(text)![1]);
/**
 * Redis memory less the clients' buffers, which come and go with the traffic (the registering
 * calls' query buffers alone move used_memory by hundreds of KB): what the data and Redis's own
 * structures take. `raw` is used_memory itself.
 */
async function memory(): Promise<{ held: number; raw: number }> {
  const text = await redis.info("memory");
  const raw = field(text, "used_memory");
  return { raw, held: raw - field(text, "mem_clients_normal") };
}

/** Calls per command so far (Redis counts the commands Lua scripts run, too). */
async function commandCalls(): Promise<Map<string, number>> {
  const calls = new Map<string, number>();
  for (const m of (await redis.info("commandstats")).matchAll(/^cmdstat_([^:]+):calls=(\d+)/gm))
    calls.set(m[1]!, Number(m[2]));
  return calls;
}

interface Window {
  seconds: number;
  perSecond: number;
  /** the commands called most often, with their calls/s. */
  top: [string, number][];
}

/** Redis commands per second while `during` runs (or for `seconds` of nothing), less the bench's own INFO. */
async function measureCommands(seconds: number, during?: (until: number) => Promise<void>): Promise<Window> {
  const before = await commandCalls();
  const t0 = performance.now();
  await (during ? during(t0 + seconds * 1000) : sleep(seconds * 1000));
  const after = await commandCalls();
  const took = (performance.now() - t0) / 1000;
  const delta = new Map([...after].map(([name, n]) => [name, n - (before.get(name) ?? 0)]));
  // Counted once it has run: the INFO that opened the window is in it, the one that closed it is not.
  delta.set("info", (delta.get("info") ?? 1) - 1);
  const total = [...delta.values()].reduce((a, b) => a + b, 0);
  const top = [...delta]
    .filter(([, n]) => n > 0)
    .sort((a, b) => b[1] - a[1])
    .slice(0, 5)
    .map(([name, n]) => [name, n / took] as [string, number]);
  return { seconds: took, perSecond: total / took, top };
}
const topText = (w: Window) => w.top.map(([name, rate]) => `${name} ${rate.toFixed(1)}/s`).join(", ");

/** Drain jobs by state over the delivery queues, read straight from BullMQ's keys. */
async function drainJobs(): Promise<{ wait: number; active: number; delayed: number }> {
  const sum = { wait: 0, active: 0, delayed: 0 };
  for (let i = 0; i < DELIVERY_SHARDS; i++) {
    const q = `${keys.queuePrefix()}:${keys.deliveryQueue(i)}`;
    sum.wait += await redis.llen(`${q}:wait`);
    sum.active += await redis.llen(`${q}:active`);
    sum.delayed += await redis.zcard(`${q}:delayed`);
  }
  return sum;
}

/** A counter of the workers' /metrics, summed over its labels and the worker processes. */
async function workersCounter(name: string): Promise<number> {
  let sum = 0;
  for (const p of bench.stack.processes.filter((p) => p.service === "webhook-worker")) {
    const text = await (await request(`http://127.0.0.1:${p.port}/metrics`, { dispatcher: agent })).body.text();
    for (const m of text.matchAll(new RegExp(`^${name}(?:\\{[^}]*\\})? (\\S+)`, "gm"))) sum += Number(m[1]);
  }
  return sum;
}

try {
  const closedPort = await freePort(); // bound, closed, and left closed: every delivery is refused
  await sleep(3000); // the services' start-up traffic and its client buffers settle
  const memoryBefore = await memory();
  const keysBefore = await redis.dbsize();

  const t0 = performance.now();
  const bots = await inParallel(BOTS, IN_FLIGHT, () => bench.platform.createBot());
  const registerSeconds = (performance.now() - t0) / 1000;
  const memoryRegistered = await memory();
  const keysPerBot = ((await redis.dbsize()) - keysBefore) / BOTS;
  log(`${BOTS} bots registered in ${registerSeconds.toFixed(1)} s`);

  const healthy = bots.slice(0, HEALTHY);
  const failing = bots.slice(HEALTHY, HEALTHY + FAILING);
  const failingUrl = `http://127.0.0.1:${closedPort}/hook`;
  await inParallel(HEALTHY + FAILING, IN_FLIGHT, async (i) => {
    const bot = bots[i]!;
    const r = await request(`${bench.gatewayUrl}/bot${bot.token}/setWebhook`, {
      method: "POST",
      dispatcher: agent,
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ url: i < HEALTHY ? receiver.url : failingUrl }),
    });
    const body = (await r.body.json()) as { ok: boolean; description?: string };
    if (!body.ok) throw new Error(`setWebhook: ${body.description}`);
  });
  await sleep(2000);
  const baseline = BASELINE_SECONDS > 0 ? await measureCommands(BASELINE_SECONDS) : undefined;
  if (baseline)
    log(`at rest, webhooks set, nothing pending: ${baseline.perSecond.toFixed(1)} cmds/s (${topText(baseline)})`);

  const pushing = performance.now();
  await inParallel(HEALTHY + FAILING, IN_FLIGHT, async (i) => {
    const r = await bench.platform.pushUpdate(bots[i]!.id, userMessage(1 + (i % 100), `first ${i}`));
    if (r.status !== 200) throw new Error(`push failed: ${JSON.stringify(r.body)}`);
  });
  const pushed = performance.now();
  await receiver.waitFor((got) => got.length >= HEALTHY, 60_000);
  log(
    `${HEALTHY + FAILING} updates pushed, the healthy bots' delivered, in ${((performance.now() - pushing) / 1000).toFixed(1)} s`,
  );

  await sleep(Math.max(0, pushed + SETTLE_SECONDS * 1000 - performance.now()));
  const pending = (await Promise.all(failing.map((b) => redis.xlen(keys.updateLog(b.id))))) // outside the windows
    .reduce((a, b) => a + b, 0);
  const jobs = await drainJobs();
  const state = `${pending} updates pending for the ${FAILING} failing bots; drain jobs: ${jobs.delayed} delayed, ${jobs.wait} waiting, ${jobs.active} active`;
  log(`after ${SETTLE_SECONDS} s: ${state}`);
  const lastError = (await bench.platform.call("GET", `/bots/${failing[0]!.id}/webhook`)).body.result
    ?.last_error_message as string | undefined;

  const failuresBefore = await workersCounter("starpost_webhook_failures_total");
  const rest = await measureCommands(MEASURE_SECONDS);
  const attempts = (await workersCounter("starpost_webhook_failures_total")) - failuresBefore;
  log(`at rest: ${rest.perSecond.toFixed(1)} cmds/s, ${attempts} failed deliveries meanwhile; top: ${topText(rest)}`);

  let probes = 0;
  const probing = await measureCommands(MEASURE_SECONDS, async (until) => {
    const inflight: Promise<unknown>[] = [];
    for (let due = performance.now(); due < until; due += PROBE_EVERY_MS) {
      await sleep(Math.max(0, due - performance.now()));
      const bot = healthy[Math.floor(Math.random() * healthy.length)]!;
      const text = `probe ${probes++}`;
      probeSent.set(text, performance.now());
      inflight.push(
        bench.platform.pushUpdate(bot.id, userMessage(1, text)).then((r) => {
          if (r.status !== 200) throw new Error(`push failed: ${JSON.stringify(r.body)}`);
        }),
      );
    }
    await Promise.all(inflight);
  });
  // A probe still undelivered after this wait counts with the time it has waited so far (a lower bound).
  const deadline = Date.now() + 60_000;
  while (latencies.length < probes && Date.now() < deadline) await sleep(20);
  const received = latencies.length;
  for (const sent of probeSent.values()) latencies.push(performance.now() - sent);
  log(`while probing: ${probing.perSecond.toFixed(1)} cmds/s; top: ${topText(probing)}`);
  const memoryEnd = await memory();

  // What one retry costs, and the rest rate it makes once every failing bot waits 60–120 s between tries.
  const fixed = baseline?.perSecond ?? 0;
  const perRetry = attempts > 0 ? ((rest.perSecond - fixed) * rest.seconds) / attempts : 0;
  const atCap = fixed + (perRetry * FAILING) / 90;
  const name = `${BOTS} bots, ${HEALTHY} healthy + ${FAILING} failing webhooks`;
  report([
    {
      bench: "scale-rest",
      name: `Redis commands/s at rest (${name}, ${durability()})`,
      value: rest.perSecond,
      unit: "cmds/s",
      note: `over ${rest.seconds.toFixed(0)} s from ${SETTLE_SECONDS} s after the pushes (${state}; ${attempts} failed deliveries in the window${lastError ? `, "${lastError}"` : ""}); top 5 by calls/s: ${topText(rest)}`,
    },
    {
      bench: "scale-rest",
      name: "Redis commands/s at rest per failing webhook bot",
      value: rest.perSecond / FAILING,
      unit: "cmds/s",
      target: "<= 0.2",
      targetOn: "value",
    },
    ...(baseline
      ? [
          {
            bench: "scale-rest",
            name: "Redis commands/s at rest before any update was pushed (webhooks set)",
            value: baseline.perSecond,
            unit: "cmds/s",
            note: `over ${baseline.seconds.toFixed(0)} s; top 5: ${topText(baseline)}`,
          },
        ]
      : []),
    {
      bench: "scale-rest",
      name: "Redis commands per failed delivery at rest",
      value: perRetry,
      unit: "cmds",
      note: `(rest - ${baseline ? "baseline" : "0"}) × seconds ÷ failed deliveries in the window; with every failing bot at the 60–120 s cap (90 s on average) that would be ${atCap.toFixed(0)} cmds/s, ${(atCap / FAILING).toFixed(2)} per failing bot`,
    },
    {
      bench: "scale-rest",
      name: "Redis memory per registered bot",
      value: (memoryRegistered.held - memoryBefore.held) / BOTS,
      unit: "bytes",
      target: "<= 1024",
      targetOn: "value",
      note: `used_memory less client buffers; used_memory itself ${Math.round((memoryRegistered.raw - memoryBefore.raw) / BOTS)} B per bot; ${keysPerBot.toFixed(2)} keys per bot (and 2 fields of the usernames hash); ${Math.round(BOTS / registerSeconds)} bots registered/s (${IN_FLIGHT} in flight); after the webhooks, the pushes and the probes ${Math.round((memoryEnd.held - memoryBefore.held) / BOTS)} B per bot`,
    },
    {
      bench: "scale-rest",
      name: `p50 push -> healthy webhook receipt, one update every ${PROBE_EVERY_MS} ms`,
      value: percentile(latencies, 50),
      unit: "ms",
    },
    {
      bench: "scale-rest",
      name: `p99 push -> healthy webhook receipt, one update every ${PROBE_EVERY_MS} ms`,
      value: percentile(latencies, 99),
      unit: "ms",
      target: "<= 100",
      targetOn: "value",
      note: `${received} of ${probes} received${received < probes ? " (the rest count with the time they waited)" : ""}, max ${Math.max(...latencies).toFixed(1)} ms`,
    },
    {
      bench: "scale-rest",
      name: "Redis commands/s while those updates were delivered",
      value: probing.perSecond,
      unit: "cmds/s",
      note: `over ${probing.seconds.toFixed(0)} s; top 5: ${topText(probing)}`,
    },
  ]);
} finally {
  await agent.close();
  await redis.quit();
  await bench.stop();
  await receiver.close();
}
