/**
 * Webhook latency: ingest-to-receipt at a steady rate (default 1,000 updates/s for 10 s) — from
 * the moment the platform call is sent to the gateway to the moment the receiver (in this
 * process, so both clocks are one) gets the POST. One bot, 100 chats, 2 webhook-worker
 * processes, every service its own process on a private redis-server (AOF with fsync always;
 * BENCH_AOF=no turns it off).
 *
 *   node --import tsx bench/webhook-latency.ts    (BENCH_WEBHOOK_RATE, BENCH_WEBHOOK_SECONDS)
 */
import { createServer } from "node:http";
import { Agent, request } from "undici";
import { Platform, startProcessStack, startRedis } from "@starpost/testkit";
import { percentile } from "./lib/load.ts";
import { report } from "./lib/report.ts";

const RATE = Number(process.env.BENCH_WEBHOOK_RATE ?? 1000);
const SECONDS = Number(process.env.BENCH_WEBHOOK_SECONDS ?? 10);
/** A first phase at the same rate warms the processes (JIT, connections) and is not measured. */
const WARMUP_SECONDS = 3;
const PLATFORM_TOKEN = "bench-platform-token-0123456789";

const redisServer = await startRedis({ appendonly: process.env.BENCH_AOF !== "no" });
const stack = await startProcessStack({
  redisUrl: redisServer.url,
  workers: 2,
  env: { PLATFORM_TOKEN, LOG_LEVEL: "warn", WEBHOOK_ALLOW_PRIVATE_NETWORKS: "true" },
});

// The text of each message is its send time on this process's clock.
const latencies: number[] = [];
let received = 0;
let measuring = false;
const receiver = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on("data", (c: Buffer) => chunks.push(c));
  req.on("end", () => {
    const now = performance.now();
    const update = JSON.parse(Buffer.concat(chunks).toString("utf8"));
    received++;
    if (measuring) latencies.push(now - Number(update.message.text));
    res.writeHead(200, { "content-length": "0" }).end();
  });
});
receiver.keepAliveTimeout = 75_000;
await new Promise<void>((r) => receiver.listen(0, "127.0.0.1", () => r()));
const receiverUrl = `http://127.0.0.1:${(receiver.address() as { port: number }).port}/hook`;
const agent = new Agent({ keepAliveTimeout: 60_000, connections: 64 });

try {
  const platform = new Platform(stack.gatewayUrl, PLATFORM_TOKEN);
  const bot = await platform.createBot();
  const set = await request(`${stack.gatewayUrl}/bot${bot.token}/setWebhook`, {
    method: "POST",
    dispatcher: agent,
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ url: receiverUrl, max_connections: 40 }),
  });
  await set.body.dump();
  const ingestUrl = `${stack.gatewayUrl}/platform/v1/bots/${bot.id}/updates`;
  const headers = { authorization: `Bearer ${PLATFORM_TOKEN}`, "content-type": "application/json" };
  /** Sends `count` updates at RATE/s, open loop: update i leaves at start + i/RATE. */
  async function phase(count: number, first: number) {
    const start = performance.now();
    const inflight: Promise<void>[] = [];
    for (let i = 0; i < count; i++) {
      const due = start + (i * 1000) / RATE;
      const wait = due - performance.now();
      if (wait > 1) await new Promise((r) => setTimeout(r, wait - 1));
      while (performance.now() < due) await new Promise((r) => setImmediate(r));
      const chat = 1 + ((first + i) % 100);
      const message = { message_id: first + i, from: { id: chat, is_bot: false, first_name: "Ann" }, chat: { id: chat, type: "private", first_name: "Ann" }, date: 1, text: String(performance.now()) };
      inflight.push(request(ingestUrl, { method: "POST", headers, body: JSON.stringify({ message }), dispatcher: agent }).then((r) => r.body.dump()));
    }
    await Promise.all(inflight);
    const deadline = Date.now() + 30_000;
    while (received < first + count && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    if (received < first + count) throw new Error(`only ${received} of ${first + count} delivered`);
    return start;
  }
  const warm = RATE * WARMUP_SECONDS;
  await phase(warm, 0);
  measuring = true;
  const start = await phase(RATE * SECONDS, warm);
  const achieved = (RATE * SECONDS) / ((performance.now() - start) / 1000);
  report([
    { bench: "webhook-latency", name: `p50 ingest -> webhook receipt at ${RATE}/s`, value: percentile(latencies, 50), unit: "ms" },
    { bench: "webhook-latency", name: `p99 ingest -> webhook receipt at ${RATE}/s`, value: percentile(latencies, 99), unit: "ms", target: "<= 50", targetOn: "value" },
    { bench: "webhook-latency", name: "max ingest -> webhook receipt", value: Math.max(...latencies), unit: "ms", note: `~${Math.round(achieved)}/s sustained` },
  ]);
} finally {
  await agent.close();
  await stack.stop();
  receiver.close();
  await redisServer.stop();
}
