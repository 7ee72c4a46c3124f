/**
 * sendInvoice through the gateway (client -> gateway -> invoices -> Redis) at 64 connections,
 * against the bare fastify ceiling measured just before with the same body and connections.
 *
 *   node --import tsx bench/run.ts send-invoice
 */
import { botClient } from "@starpost/testkit";
import { ceilings, cpuPerCallFigure, floorFigures, twoHopFloor, withFloorRedis } from "./lib/ceiling.ts";
import { autocannon, type LoadResult } from "./lib/load.ts";
import { report } from "./lib/report.ts";
import { durability, startBenchStack } from "./lib/stack.ts";

const CONNECTIONS = 64;
const params = {
  chat_id: 1001,
  title: "Gold",
  description: "A bag of gold for the bench",
  payload: "bench-order",
  currency: "XTR",
  prices: [{ label: "Gold", amount: 100 }],
};
const body = JSON.stringify(params);

function strict(r: LoadResult, what: string): LoadResult {
  if (r.errors > 0 || r.non2xx > 0) throw new Error(`${what}: ${r.errors} errors, ${r.non2xx} non-2xx answers`);
  return r;
}

const c = await ceilings({ method: "POST", body, connections: CONNECTIONS });
const ceiling = strict(c.bare, "bare fastify");
strict(c.tcp, "two-hop floor (TCP)");
strict(c.unix, "two-hop floor (Unix socket)");
// The floor of a service that keeps what it is sent: the TCP floor whose service runs one Lua step
// on a Redis as durable as starpost's before it answers (sendInvoice runs two: its own and the
// request log's).
const durable = strict(
  await withFloorRedis((redis) => twoHopFloor("tcp", { method: "POST", body, connections: CONNECTIONS }, 1, redis)),
  "two-hop floor with a Lua step",
);

const bench = await startBenchStack();
let ours: LoadResult;
try {
  const bot = await bench.platform.createBot();
  await bench.platform.putChat(bot.id, { id: params.chat_id, type: "private", first_name: "Ann" });
  const check = await botClient(bench.gatewayUrl, bot.token)("sendInvoice", params);
  if (check.status !== 200) throw new Error(`sendInvoice failed: ${JSON.stringify(check.body)}`);
  const cpuOf = { gateway: bench.pid("gateway"), invoices: bench.pid("invoices"), redis: bench.redis.process.pid! };
  ours = strict(
    await autocannon({
      url: `${bench.gatewayUrl}/bot${bot.token}/sendInvoice`,
      method: "POST",
      body,
      connections: CONNECTIONS,
      cpuOf,
    }),
    "sendInvoice",
  );
} finally {
  await bench.stop();
}

report([
  {
    bench: "send-invoice",
    name: `sendInvoice through the gateway (${CONNECTIONS} conns, ${durability()})`,
    value: ours.rps,
    unit: "req/s",
    ceiling: { name: "bare fastify req/s", value: ceiling.rps },
    ratio: ours.rps / ceiling.rps,
    target: ">= 0.35",
    targetOn: "ratio",
  },
  {
    bench: "send-invoice",
    name: "sendInvoice p50",
    value: ours.p50,
    unit: "ms",
    ceiling: { name: "bare p50 ms", value: ceiling.p50 },
  },
  {
    bench: "send-invoice",
    name: "sendInvoice p99",
    value: ours.p99,
    unit: "ms",
    ceiling: { name: "bare p99 ms", value: ceiling.p99 },
  },
  ...floorFigures("send-invoice", "sendInvoice", ours, c, ">= 0.6"),
  {
    bench: "send-invoice",
    name: `two-hop floor (TCP) with one Lua step on Redis (${durability()}) ÷ two-hop floor (TCP)`,
    value: durable.rps,
    unit: "req/s",
    ceiling: { name: "floor req/s", value: c.tcp.rps },
    ratio: durable.rps / c.tcp.rps,
    note: `CPU ${Math.round(durable.cpuUsPerRequest.floor ?? NaN)} µs per call (gateway, service and redis); the most any service that keeps what it is sent can reach of the floor`,
  },
  {
    bench: "send-invoice",
    name: "sendInvoice ÷ two-hop floor (TCP) with one Lua step",
    value: ours.rps,
    unit: "req/s",
    ceiling: { name: "floor with a step req/s", value: durable.rps },
    ratio: ours.rps / durable.rps,
  },
  { ...cpuPerCallFigure("send-invoice", "sendInvoice", ours, ceiling), target: "<= 130" },
  {
    ...cpuPerCallFigure("send-invoice", "sendInvoice", ours, c.tcp, "floor"),
    name: "CPU per call vs the TCP two-hop floor",
  },
]);
