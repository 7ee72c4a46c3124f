/**
 * Webhook latency: ingest-to-receipt at a steady rate (default 1,000 updates/s for 10 s) — from
 * the moment the platform call is sent to the gateway to the moment the receiver (in this
 * process, so both clocks are one) gets the POST. One bot, 100 chats, 2 webhook-worker
 * processes, every service its own process on a private redis-server (AOF with fsync always;
 * BENCH_AOF=no turns it off).
 *
 *   node --import tsx bench/run.ts webhook-latency    (BENCH_WEBHOOK_RATE, BENCH_WEBHOOK_SECONDS)
 */
import { Agent, request } from "undici";
import { startReceiver, userMessage } from "@starpost/testkit";
import { percentile } from "./lib/load.ts";
import { report } from "./lib/report.ts";
import { PLATFORM_TOKEN, startBenchStack } from "./lib/stack.ts";

const RATE = Number(process.env.BENCH_WEBHOOK_RATE ?? 1000);
const SECONDS = Number(process.env.BENCH_WEBHOOK_SECONDS ?? 10);
/** A first phase at the same rate warms the processes (JIT, connections) and is not measured. */
const WARMUP_SECONDS = 3;

const bench = await startBenchStack({ workers: 2 });

// The text of each message is its send time on this process's clock; the receiver's answer hook
// runs at receipt, so both ends read one clock.
const latencies: number[] = [];
/** How long the ingest call itself took to answer: splits the latency into ingest and delivery. */
const ingestLatencies: number[] = [];
let measuring = false;
const receiver = await startReceiver({
  answer: (r) => {
    if (measuring) latencies.push(performance.now() - Number(r.update.message.text));
    return undefined;
  },
});
const agent = new Agent({ keepAliveTimeout: 60_000, connections: 64 });

try {
  const bot = await bench.platform.createBot();
  const set = await request(`${bench.gatewayUrl}/bot${bot.token}/setWebhook`, {
    method: "POST",
    dispatcher: agent,
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ url: receiver.url, max_connections: 40 }),
  });
  await set.body.dump();
  const ingestUrl = `${bench.gatewayUrl}/platform/v1/bots/${bot.id}/updates`;
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
      const body = JSON.stringify(userMessage(1 + ((first + i) % 100), String(performance.now())));
      const sent = performance.now();
      inflight.push(
        request(ingestUrl, { method: "POST", headers, body, dispatcher: agent })
          .then((r) => r.body.dump())
          .then(() => {
            if (measuring) ingestLatencies.push(performance.now() - sent);
          }),
      );
    }
    await Promise.all(inflight);
    const deadline = Date.now() + 30_000;
    while (receiver.received.length < first + count && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 20));
    if (receiver.received.length < first + count)
      throw new Error(`only ${receiver.received.length} of ${first + count} delivered`);
    return start;
  }
  const warm = RATE * WARMUP_SECONDS;
  await phase(warm, 0);
  measuring = true;
  const start = await phase(RATE * SECONDS, warm);
  const achieved = (RATE * SECONDS) / ((performance.now() - start) / 1000);
  report([
    {
      bench: "webhook-latency",
      name: `p50 ingest -> webhook receipt at ${RATE}/s`,
      value: percentile(latencies, 50),
      unit: "ms",
    },
    {
      bench: "webhook-latency",
      name: `p99 ingest -> webhook receipt at ${RATE}/s`,
      value: percentile(latencies, 99),
      unit: "ms",
      target: "<= 50",
      targetOn: "value",
    },
    {
      bench: "webhook-latency",
      name: "max ingest -> webhook receipt",
      value: Math.max(...latencies),
      unit: "ms",
      note: `~${Math.round(achieved)}/s sustained`,
    },
    {
      bench: "webhook-latency",
      name: "p99 of the ingest call alone (platform API answered)",
      value: percentile(ingestLatencies, 99),
      unit: "ms",
      note: `p50 ${percentile(ingestLatencies, 50).toFixed(1)} ms`,
    },
  ]);
} finally {
  await agent.close();
  await bench.stop();
  await receiver.close();
}
