/**
 * Whether an answer's timing tells that a bot id exists: sequential getMe calls through the gateway
 * with a known bot id and a wrong secret, and with ids that do not exist (each id asked many times,
 * as a prober would; and fresh ids, never seen before), interleaved so drift in the machine's load
 * falls on all alike. Each call is timed on the client; the figures are the medians and p90s.
 *
 *   node --import tsx bench/run.ts token-timing
 */
import { Agent, request } from "node:http";
import { report } from "./lib/report.ts";
import { startBenchStack } from "./lib/stack.ts";

const ROUNDS = Number(process.env.BENCH_TOKEN_ROUNDS ?? 2_000);
const agent = new Agent({ keepAlive: true, maxSockets: 1 });

function getMe(url: URL, token: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    request({ host: url.hostname, port: url.port, path: `/bot${token}/getMe`, agent }, (res) => {
      res.resume().once("end", () => {
        if (res.statusCode !== 401) reject(new Error(`expected 401, got ${res.statusCode}`));
        else resolve(Number(process.hrtime.bigint() - started) / 1000);
      });
    })
      .once("error", reject)
      .end();
  });
}

const quantile = (xs: number[], q: number) => [...xs].sort((a, b) => a - b)[Math.floor(q * (xs.length - 1))]!;

const bench = await startBenchStack();
const samples: Record<string, number[]> = { "wrong secret": [], "unknown id, repeated": [], "unknown id, fresh": [] };
try {
  const bot = await bench.platform.createBot();
  const url = new URL(bench.gatewayUrl);
  const wrongSecret = `${bot.id}:${"x".repeat(35)}`;
  const unknown = `${bot.id + 7_777_777}:${"x".repeat(35)}`;
  for (let i = 0; i < 200; i++) await getMe(url, wrongSecret); // warm-up
  for (let i = 0; i < ROUNDS; i++) {
    samples["wrong secret"]!.push(await getMe(url, wrongSecret));
    samples["unknown id, repeated"]!.push(await getMe(url, unknown));
    samples["unknown id, fresh"]!.push(await getMe(url, `${bot.id + 10_000_000 + i}:${"x".repeat(35)}`));
  }
} finally {
  agent.destroy();
  await bench.stop();
}

const base = quantile(samples["wrong secret"]!, 0.5);
report(
  Object.entries(samples).map(([name, xs]) => ({
    bench: "token-timing",
    name: `getMe 401, ${name}: median`,
    value: quantile(xs, 0.5),
    unit: "µs",
    ceiling: { name: "wrong secret median µs", value: base },
    ratio: quantile(xs, 0.5) / base,
    note: `p90 ${quantile(xs, 0.9).toFixed(0)} µs over ${xs.length} calls`,
  })),
);
