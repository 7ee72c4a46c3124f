/**
 * Webhook delivery throughput: updates already in the bots' logs are drained to one local
 * receiver (its own process) by 2 webhook-worker processes, 100 chats, max_connections 40 per
 * bot. Shown next to the ceiling: what the same receiver takes from autocannon directly, with
 * as many connections as the workers may open. The services run as separate processes on a
 * private redis-server (AOF with fsync always; BENCH_AOF=no turns it off).
 *
 *   node --import tsx bench/webhook-throughput.ts
 *   BENCH_WEBHOOK_UPDATES (default 40000), BENCH_WEBHOOK_BOTS (default 2: one drain per bot runs
 *   on one worker, so 2 bots keep both workers busy), BENCH_WEBHOOK_WORKERS (default 2)
 */
import { Agent, request } from "undici";
import { Platform, startProcessStack, startRedis, stopProcess } from "@starpost/testkit";
import { autocannon } from "./lib/load.ts";
import { startScript } from "./lib/processes.ts";
import { report } from "./lib/report.ts";

const N = Number(process.env.BENCH_WEBHOOK_UPDATES ?? 40_000);
const BOTS = Number(process.env.BENCH_WEBHOOK_BOTS ?? 2);
const WORKERS = Number(process.env.BENCH_WEBHOOK_WORKERS ?? 2);
const CHATS = 100;
const MAX_CONNECTIONS = 40;
const PLATFORM_TOKEN = "bench-platform-token-0123456789";

const redisServer = await startRedis({ appendonly: process.env.BENCH_AOF !== "no" });
const stack = await startProcessStack({
  redisUrl: redisServer.url,
  workers: WORKERS,
  env: { PLATFORM_TOKEN, LOG_LEVEL: "warn", WEBHOOK_ALLOW_PRIVATE_NETWORKS: "true" },
});
const receiver = await startScript("./receiver.ts");
const receiverUrl = `http://127.0.0.1:${receiver.port}`;
const agent = new Agent({ keepAliveTimeout: 60_000 });
const count = async () => ((await (await request(receiverUrl, { dispatcher: agent })).body.json()) as { received: number }).received;

try {
  const ceiling = await autocannon({ url: `${receiverUrl}/hook`, method: "POST", body: '{"update_id":1,"message":{"text":"x"}}', connections: MAX_CONNECTIONS * BOTS, seconds: 5 });
  const base = await count();

  const platform = new Platform(stack.gatewayUrl, PLATFORM_TOKEN);
  const bots = await Promise.all(Array.from({ length: BOTS }, () => platform.createBot()));
  // Fill the logs first (no webhook yet, so nothing is delivered), then measure the drain alone.
  const chatsPerBot = Math.max(1, Math.round(CHATS / BOTS));
  for (let sent = 0; sent < N; sent += 1000) {
    const bot = bots[(sent / 1000) % BOTS]!;
    const batch = Array.from({ length: Math.min(1000, N - sent) }, (_, i) => {
      const chat = 1 + ((sent + i) % chatsPerBot);
      return { message: { message_id: sent + i, from: { id: chat, is_bot: false, first_name: "Ann" }, chat: { id: chat, type: "private", first_name: "Ann" }, date: 1, text: `m${sent + i}` } };
    });
    const r = await platform.pushUpdate(bot.id, batch);
    if (r.status !== 200) throw new Error(`ingest failed: ${JSON.stringify(r.body)}`);
  }

  const started = performance.now();
  await Promise.all(
    bots.map((bot) =>
      request(`${stack.gatewayUrl}/bot${bot.token}/setWebhook`, {
        method: "POST",
        dispatcher: agent,
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ url: `${receiverUrl}/hook`, max_connections: MAX_CONNECTIONS }),
      }).then((r) => r.body.dump()),
    ),
  );
  const deadline = Date.now() + 90_000;
  let got = 0;
  while ((got = (await count()) - base) < N) {
    if (Date.now() > deadline) throw new Error(`only ${got} of ${N} delivered in 90 s`);
    await new Promise((r) => setTimeout(r, 20));
  }
  const seconds = (performance.now() - started) / 1000;
  const rate = N / seconds;
  report([
    {
      bench: "webhook-throughput",
      name: `delivered/s (${N} updates, ${BOTS} bots, ${CHATS} chats, ${WORKERS} workers, max_connections ${MAX_CONNECTIONS})`,
      value: rate,
      unit: "updates/s",
      target: ">= 5000",
      targetOn: "value",
      ceiling: { name: "receiver via autocannon", value: ceiling.rps },
      ratio: rate / ceiling.rps,
    },
  ]);
} finally {
  await agent.close();
  await stopProcess(receiver.child, "SIGTERM");
  await stack.stop();
  await redisServer.stop();
}
