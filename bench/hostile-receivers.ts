/**
 * Hostile webhook receivers (issue 30), on a stack started as the other benches start theirs (every
 * service its own process, BENCH_WORKERS webhook workers (2, as compose and a busy `npm start` run;
 * 1 as `npm start` starts), default worker settings):
 *
 * 1. 300 bots whose receivers answer 200 and then trickle their body (a byte every 2 s, for ever),
 *    then a healthy bot sent 120 updates at 10/s: how many of them arrive, and their p99 from the
 *    platform call to the receipt (while the 300 attempts are still stalled: the default 60 s
 *    deadline has not come).
 * 2. A fresh stack: 10 bots (max_connections 40, 40 chats each) whose receiver answers every update
 *    with a 20 MB chunked 2xx body: the webhook workers' RSS above their rest, at its peak.
 *
 *   node --import tsx bench/run.ts hostile-receivers    (BENCH_HOSTILE_STALLING, BENCH_HOSTILE_SECONDS)
 */
import { createServer, type Server, type ServerResponse } from "node:http";
import type { Socket } from "node:net";
import { Agent, request } from "undici";
import { sleep, userMessage } from "@starpost/testkit";
import { percentile } from "./lib/load.ts";
import { inParallel } from "./lib/pool.ts";
import { rssMb } from "./lib/processes.ts";
import { report, type Figure } from "./lib/report.ts";
import { startBenchStack, type BenchStack } from "./lib/stack.ts";

const WORKERS = Number(process.env.BENCH_WORKERS ?? 2);
const STALLING = Number(process.env.BENCH_HOSTILE_STALLING ?? 300);
const HEALTHY_UPDATES = 120;
const HEALTHY_RATE = 10;
const BIG_BOTS = 10;
const BIG_CONNECTIONS = 40;
const BIG_BYTES = 20 * 1024 * 1024;
/** How long the big answers are sent for (the RSS is sampled meanwhile). */
const BIG_SECONDS = Number(process.env.BENCH_HOSTILE_SECONDS ?? 20);
const BENCH = "hostile-receivers";

const agent = new Agent({ keepAliveTimeout: 60_000, connections: 64 });

/** A receiver on 127.0.0.1 answering with `answer`; every bot gets its own path. */
async function receiver(answer: (res: ServerResponse, body: string) => void) {
  const sockets = new Set<Socket>();
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => answer(res, Buffer.concat(chunks).toString("utf8")));
  });
  server.keepAliveTimeout = 60_000;
  server.on("connection", (s) => {
    sockets.add(s);
    s.on("close", () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as { port: number }).port;
  return {
    url: (path: string) => `http://127.0.0.1:${port}/${path}`,
    sockets,
    close() {
      for (const s of sockets) s.destroy();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

async function setWebhook(bench: BenchStack, bot: { token: string }, url: string, maxConnections = 40) {
  const res = await request(`${bench.gatewayUrl}/bot${bot.token}/setWebhook`, {
    method: "POST",
    dispatcher: agent,
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ url, max_connections: maxConnections }),
  });
  const text = await res.body.text();
  if (res.statusCode !== 200) throw new Error(`setWebhook: ${res.statusCode} ${text}`);
}
async function push(bench: BenchStack, botId: number, updates: unknown) {
  const res = await bench.platform.pushUpdate(botId, updates);
  if (res.status !== 200) throw new Error(`push: ${res.status} ${JSON.stringify(res.body)}`);
}

const workerPids = (bench: BenchStack) =>
  bench.stack.processes.filter((p) => p.service === "webhook-worker").map((p) => p.child.pid!);

async function stallingPhase(): Promise<Figure[]> {
  const bench = await startBenchStack({ workers: WORKERS });
  let trickling = 0;
  const stalling = await receiver((res) => {
    res.writeHead(200, { "content-type": "application/json" });
    trickling++;
    const t = setInterval(() => res.write(" "), 2000);
    res.on("close", () => {
      clearInterval(t);
      trickling--;
    });
  });
  const sentAt = new Map<number, number>();
  const latencies: number[] = [];
  const healthy = await receiver((res, body) => {
    const i = Number(JSON.parse(body).message?.text);
    const sent = sentAt.get(i);
    if (sent !== undefined && !latencies[i]) latencies[i] = performance.now() - sent;
    res.end();
  });
  try {
    const bots = await inParallel(STALLING, 16, async (i) => {
      const bot = await bench.platform.createBot();
      await setWebhook(bench, bot, stalling.url(`stall/${i}`));
      return bot;
    });
    // Three chats each, so a bot with a success behind it would stall three connections.
    await inParallel(STALLING, 16, (i) =>
      push(
        bench,
        bots[i]!.id,
        [1, 2, 3].map((c) => userMessage(c, "stall")),
      ),
    );
    const until = Date.now() + 60_000;
    while (trickling < STALLING && Date.now() < until) await sleep(100);
    const stalledBefore = trickling;
    const bot = await bench.platform.createBot();
    await setWebhook(bench, bot, healthy.url("healthy"));
    const start = performance.now();
    const pushes: Promise<void>[] = [];
    for (let i = 0; i < HEALTHY_UPDATES; i++) {
      const due = start + (i * 1000) / HEALTHY_RATE;
      await sleep(Math.max(0, due - performance.now()));
      sentAt.set(i, performance.now());
      pushes.push(push(bench, bot.id, userMessage(1 + (i % 10), String(i))));
    }
    await Promise.all(pushes);
    const deadline = Date.now() + 10_000;
    const delivered = () => latencies.filter((l) => l !== undefined).length;
    while (delivered() < HEALTHY_UPDATES && Date.now() < deadline) await sleep(50);
    const got = latencies.filter((l) => l !== undefined);
    return [
      {
        bench: BENCH,
        name: `healthy bot's updates delivered (of ${HEALTHY_UPDATES}) while ${STALLING} bots trickle 200-bodies`,
        value: got.length,
        unit: "updates",
        target: `>= ${HEALTHY_UPDATES}`,
        targetOn: "value",
        note: `${stalledBefore} stalled attempts when the healthy bot started, ${trickling} at its end`,
      },
      {
        bench: BENCH,
        name: `healthy bot's p99 platform call -> receipt while ${STALLING} bots trickle`,
        value: got.length ? percentile(got, 99) : NaN,
        unit: "ms",
        target: "<= 1000",
        targetOn: "value",
        note: got.length ? `p50 ${percentile(got, 50).toFixed(1)} ms` : "none delivered",
      },
    ];
  } finally {
    await stalling.close();
    await healthy.close();
    await bench.stop();
  }
}

async function bigAnswersPhase(): Promise<Figure[]> {
  const bench = await startBenchStack({ workers: WORKERS });
  const chunk = Buffer.alloc(64 * 1024, "x");
  let answers = 0;
  let cut = 0;
  const big = await receiver((res) => {
    answers++;
    res.writeHead(200, { "content-type": "application/json" }); // no Content-Length: chunked
    let written = 0;
    const write = () => {
      let more = true;
      while (more && written < BIG_BYTES) {
        more = res.write(written === 0 ? '{"method":"sendMessage","chat_id":1,"text":"' : chunk);
        written += chunk.length;
      }
      if (written >= BIG_BYTES) res.end('"}');
    };
    res.on("drain", write);
    res.on("close", () => {
      if (!res.writableFinished) cut++;
    });
    write();
  });
  try {
    const pids = workerPids(bench);
    const rss = () => pids.reduce((sum, pid) => sum + rssMb(pid), 0);
    const bots = await inParallel(BIG_BOTS, BIG_BOTS, async (i) => {
      const bot = await bench.platform.createBot();
      await setWebhook(bench, bot, big.url(`big/${i}`), BIG_CONNECTIONS);
      return bot;
    });
    await sleep(2000);
    const rest = rss();
    // Enough updates in 40 chats per bot to keep 40 connections busy for the whole phase.
    await inParallel(BIG_BOTS, BIG_BOTS, (i) =>
      push(
        bench,
        bots[i]!.id,
        Array.from({ length: 400 }, (_, j) => userMessage(1 + (j % BIG_CONNECTIONS), "big")),
      ),
    );
    let peak = rest;
    const until = Date.now() + BIG_SECONDS * 1000;
    while (Date.now() < until) {
      peak = Math.max(peak, rss());
      await sleep(250);
    }
    const end = rss();
    return [
      {
        bench: BENCH,
        name: `webhook workers' RSS above rest, peak, while ${BIG_BOTS} bots (${BIG_CONNECTIONS} connections each) get 20 MB chunked 2xx answers`,
        value: peak - rest,
        unit: "MB",
        target: "<= 200",
        targetOn: "value",
        note: `rest ${Math.round(rest)} MB over ${pids.length} workers, ${Math.round(end - rest)} MB above at the end; ${answers} answers begun, ${cut} cut`,
      },
    ];
  } finally {
    await big.close();
    await bench.stop();
  }
}

try {
  report([...(await stallingPhase()), ...(await bigAnswersPhase())]);
} finally {
  await agent.close();
}
