/**
 * sendInvoice through the gateway, against the ceiling of one bare fastify hop on the same machine
 * in the same run. The services run as separate processes (the compose topology), on a private
 * redis-server; autocannon runs in its own process at 64 connections.
 */
import { botClient, Platform, startProcessStack, startRedis, stopProcess } from "@starpost/testkit";
import { autocannon, type LoadResult } from "./lib/load.ts";
import { startScript } from "./lib/processes.ts";
import { report, type Figure } from "./lib/report.ts";

const SECONDS = Number(process.env.BENCH_SECONDS ?? 8);
const CONNECTIONS = 64;
const PLATFORM_TOKEN = "bench-platform-token-0123456789";

const params = {
  chat_id: 1001,
  title: "Gold",
  description: "A bag of gold for the bench",
  payload: "bench-order",
  currency: "XTR",
  prices: [{ label: "Gold", amount: 100 }],
};
const body = JSON.stringify(params);

async function measure(url: string): Promise<LoadResult> {
  await autocannon({ url, method: "POST", body, connections: CONNECTIONS, seconds: 2 }); // warm-up
  const r = await autocannon({ url, method: "POST", body, connections: CONNECTIONS, seconds: SECONDS });
  if (r.errors > 0 || r.non2xx > 0) throw new Error(`${url}: ${r.errors} errors, ${r.non2xx} non-2xx answers`);
  return r;
}

async function bare(): Promise<LoadResult> {
  const { port, child } = await startScript("./bare-server.ts");
  try {
    return await measure(`http://127.0.0.1:${port}/`);
  } finally {
    await stopProcess(child);
  }
}

async function starpost(): Promise<LoadResult> {
  const redis = await startRedis();
  const stack = await startProcessStack({ redisUrl: redis.url, workers: 0, env: { PLATFORM_TOKEN, LOG_LEVEL: "warn" } });
  try {
    const platform = new Platform(stack.gatewayUrl, PLATFORM_TOKEN);
    const bot = await platform.createBot();
    await platform.putChat(bot.id, { id: params.chat_id, type: "private", first_name: "Ann" });
    const check = await botClient(stack.gatewayUrl, bot.token)("sendInvoice", params);
    if (check.status !== 200) throw new Error(`sendInvoice failed: ${JSON.stringify(check.body)}`);
    return await measure(`${stack.gatewayUrl}/bot${bot.token}/sendInvoice`);
  } finally {
    await stack.stop();
    await redis.stop();
  }
}

const ceiling = await bare();
const ours = await starpost();
const figures: Figure[] = [
  { bench: "send-invoice", name: `bare fastify, fixed JSON (${CONNECTIONS} connections)`, value: ceiling.rps, unit: "req/s" },
  { bench: "send-invoice", name: "bare fastify p50 / p99", value: ceiling.p50, unit: `ms / ${ceiling.p99} ms` },
  {
    bench: "send-invoice",
    name: `sendInvoice through the gateway (${CONNECTIONS} connections)`,
    value: ours.rps,
    unit: "req/s",
    ceiling: { name: "bare fastify req/s", value: ceiling.rps },
    ratio: ours.rps / ceiling.rps,
    target: ">= 0.35",
    targetOn: "ratio",
  },
  { bench: "send-invoice", name: "sendInvoice p50", value: ours.p50, unit: "ms" },
  { bench: "send-invoice", name: "sendInvoice p99", value: ours.p99, unit: "ms", ceiling: { name: "bare p99 ms", value: ceiling.p99 }, ratio: ceiling.p99 / ours.p99 },
];
report(figures);
