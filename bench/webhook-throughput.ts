/**
 * Webhook delivery throughput with 1 and then 2 webhook-worker processes: updates already in the
 * bots' logs (100 chats) are drained to one local receiver (its own process), max_connections 40
 * per bot. Shown next to the ceiling: what the same receiver takes from autocannon directly, with
 * as many connections as the workers may open, measured in the same run.
 *
 *   node --import tsx bench/run.ts webhook-throughput
 *   BENCH_WEBHOOK_UPDATES (default 40000), BENCH_WEBHOOK_BOTS (default 2: one drain per bot runs
 *   on one worker, so 2 bots can keep 2 workers busy)
 */
import { Agent, request } from "undici";
import { stopProcess, userMessage } from "@starpost/testkit";
import { UPDATE_BODY } from "./lib/ceiling.ts";
import { autocannon } from "./lib/load.ts";
import { cpuMs, startScript } from "./lib/processes.ts";
import { report, type Figure } from "./lib/report.ts";
import { durability, startBenchStack } from "./lib/stack.ts";

const N = Number(process.env.BENCH_WEBHOOK_UPDATES ?? 40_000);
const BOTS = Number(process.env.BENCH_WEBHOOK_BOTS ?? 2);
const CHATS = 100;
const MAX_CONNECTIONS = 40;

const receiver = await startScript("./receiver.ts");
const receiverUrl = `http://127.0.0.1:${receiver.port}`;
const agent = new Agent({ keepAliveTimeout: 60_000 });
const count = async () =>
  ((await (await request(receiverUrl, { dispatcher: agent })).body.json()) as { received: number }).received;

/** Fills the logs with no webhook set (nothing is delivered), then times the drain alone. */
async function drain(workers: number): Promise<{ rate: number; cpu: string }> {
  const bench = await startBenchStack({ workers });
  try {
    const bots = await Promise.all(Array.from({ length: BOTS }, () => bench.platform.createBot()));
    const chatsPerBot = Math.max(1, Math.round(CHATS / BOTS));
    for (let sent = 0; sent < N; sent += 1000) {
      const bot = bots[(sent / 1000) % BOTS]!;
      const batch = Array.from({ length: Math.min(1000, N - sent) }, (_, i) =>
        userMessage(1 + ((sent + i) % chatsPerBot), `m${sent + i}`),
      );
      const r = await bench.platform.pushUpdate(bot.id, batch);
      if (r.status !== 200) throw new Error(`ingest failed: ${JSON.stringify(r.body)}`);
    }
    const base = await count();
    const measured = [
      ...bench.stack.processes
        .filter((p) => p.service === "webhook-worker")
        .map((p) => [p.name, p.child.pid!] as const),
      ["redis", bench.redis.process.pid!] as const,
      ["receiver", receiver.child.pid!] as const,
    ];
    const cpuBefore = measured.map(([, pid]) => cpuMs(pid));
    const started = performance.now();
    await Promise.all(
      bots.map((bot) =>
        request(`${bench.gatewayUrl}/bot${bot.token}/setWebhook`, {
          method: "POST",
          dispatcher: agent,
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ url: `${receiverUrl}/hook`, max_connections: MAX_CONNECTIONS }),
        }).then((r) => r.body.dump()),
      ),
    );
    const deadline = Date.now() + 120_000;
    let got = 0;
    while ((got = (await count()) - base) < N) {
      if (Date.now() > deadline) throw new Error(`only ${got} of ${N} delivered in 120 s`);
      await new Promise((r) => setTimeout(r, 20));
    }
    const seconds = (performance.now() - started) / 1000;
    const cpu = measured
      .map(([name, pid], i) => `${name} ${Math.round(((cpuMs(pid) - cpuBefore[i]!) * 1000) / N)}`)
      .join(", ");
    return { rate: N / seconds, cpu: `CPU µs per update: ${cpu}` };
  } finally {
    await bench.stop();
  }
}

try {
  const ceiling = await autocannon({
    url: `${receiverUrl}/hook`,
    method: "POST",
    body: UPDATE_BODY,
    connections: MAX_CONNECTIONS * BOTS,
    seconds: 5,
  });
  const c = { name: "receiver via autocannon req/s", value: ceiling.rps };
  const figures: Figure[] = [];
  for (const workers of [1, 2]) {
    const { rate, cpu } = await drain(workers);
    figures.push({
      bench: "webhook-throughput",
      name: `delivered/s, ${workers} worker${workers > 1 ? "s" : ""} (${N} updates, ${BOTS} bots, ${CHATS} chats, max_connections ${MAX_CONNECTIONS}, ${durability()})`,
      value: rate,
      unit: "updates/s",
      ...(workers === 2 ? { target: ">= 5000", targetOn: "value" as const } : {}),
      ceiling: c,
      ratio: rate / ceiling.rps,
      note: cpu,
    });
  }
  report(figures);
} finally {
  await agent.close();
  await stopProcess(receiver.child, "SIGTERM");
}
