/**
 * The one-hop ceiling, measured in the same run as the figure it is compared with: a bare fastify
 * server (its own process) answering a fixed JSON under the same load generator settings.
 */
import { rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startRedis, stopProcess } from "@starpost/testkit";
import { autocannon, type LoadOptions, type LoadResult } from "./load.ts";
import { startScript } from "./processes.ts";
import type { Figure } from "./report.ts";

export async function bareCeiling(o: Omit<LoadOptions, "url"> = {}): Promise<LoadResult> {
  const { port, child } = await startScript("./bare-server.ts");
  try {
    return await autocannon({ ...o, url: `http://127.0.0.1:${port}/`, cpuOf: { bare: child.pid! } });
  } finally {
    await stopProcess(child);
  }
}

export type Hop = "tcp" | "unix";

/**
 * The two-hop floor, measured in the same run as the figure it is compared with: a bare fastify
 * gateway forwarding over an undici keep-alive pool to a bare fastify service (each its own
 * process), over TCP or a Unix socket, under the same load generator settings. CPU per call is the
 * sum of both processes (and Redis's, with one: `floor`). With `redis` the service runs one Lua step per POST on that
 * Redis before it answers (see two-hop.ts): the floor of a service that keeps what it is sent.
 */
export async function twoHopFloor(
  hop: Hop,
  o: Omit<LoadOptions, "url"> = {},
  pipelining = 1,
  redis?: { url: string; pid: number },
): Promise<LoadResult> {
  const socket = join(tmpdir(), `starpost-floor-${process.pid}-${Date.now()}.sock`);
  rmSync(socket, { force: true });
  const service = await startScript("./two-hop.ts", {
    ROLE: "service",
    ...(hop === "unix" ? { SOCKET: socket } : {}),
    ...(redis ? { REDIS_URL: redis.url } : {}),
  });
  try {
    const gateway = await startScript("./two-hop.ts", {
      ROLE: "gateway",
      PIPELINING: String(pipelining),
      ...(hop === "unix" ? { SOCKET: socket } : { SERVICE_PORT: String(service.port) }),
    });
    try {
      const r = await autocannon({
        ...o,
        url: `http://127.0.0.1:${gateway.port}/`,
        cpuOf: { gateway: gateway.child.pid!, service: service.child.pid!, ...(redis ? { redis: redis.pid } : {}) },
      });
      r.cpuUsPerRequest = {
        floor: (r.cpuUsPerRequest.gateway ?? 0) + (r.cpuUsPerRequest.service ?? 0) + (r.cpuUsPerRequest.redis ?? 0),
      };
      return r;
    } finally {
      await stopProcess(gateway.child);
    }
  } finally {
    await stopProcess(service.child);
    rmSync(socket, { force: true });
  }
}

/**
 * A private redis-server as durable as the stack under test (BENCH_AOF), for the floors that keep
 * what they are sent; stopped when `use` ends.
 */
export async function withFloorRedis<T>(use: (redis: { url: string; pid: number }) => Promise<T>): Promise<T> {
  const aof = process.env.BENCH_AOF !== "no";
  const redis = await startRedis({ appendonly: aof, appendfsync: "always" });
  try {
    return await use({ url: redis.url, pid: redis.process.pid! });
  } finally {
    await redis.stop();
  }
}

/** The bare server and both two-hop floors under the same load settings, one after another. */
export async function ceilings(
  o: Omit<LoadOptions, "url"> = {},
): Promise<{ bare: LoadResult; tcp: LoadResult; unix: LoadResult }> {
  return { bare: await bareCeiling(o), tcp: await twoHopFloor("tcp", o), unix: await twoHopFloor("unix", o) };
}

/**
 * A forwarded figure as a ratio to the two-hop floors measured in the same run (the bare ratio is
 * the figure's own row): req/s ÷ floor req/s, TCP and Unix socket.
 */
export function floorFigures(
  bench: string,
  what: string,
  ours: LoadResult,
  c: { bare: LoadResult; tcp: LoadResult; unix: LoadResult },
  target?: string,
): Figure[] {
  return (["tcp", "unix"] as const).map((hop) => ({
    bench,
    name: `${what} ÷ two-hop floor (${hop === "tcp" ? "TCP" : "Unix socket"})`,
    value: ours.rps,
    unit: "req/s",
    ceiling: { name: `floor req/s (${(c[hop].rps / c.bare.rps).toFixed(2)} of bare)`, value: c[hop].rps },
    ratio: ours.rps / c[hop].rps,
    ...(target && hop === "tcp" ? { target, targetOn: "ratio" as const } : {}),
    note: `floor CPU ${Math.round(c[hop].cpuUsPerRequest.floor ?? NaN)} µs per call`,
  }));
}

/** A webhook-sized update, the body a receiver's ceiling is measured with. */
export const UPDATE_BODY = JSON.stringify({
  update_id: 1,
  message: { message_id: 1, date: 0, chat: { id: 1, type: "private", first_name: "Ann" }, text: "hi" },
});

/**
 * CPU time one call costs across the processes that serve it, next to what the bare server spends
 * on one request. On a machine whose cores are the limit, throughput ratios follow these costs, and
 * unlike req/s they hardly move with the other load on a shared machine.
 */
export function cpuPerCallFigure(
  bench: string,
  what: string,
  ours: LoadResult,
  bare: LoadResult,
  key = "bare",
): Figure {
  const parts = Object.entries(ours.cpuUsPerRequest);
  const total = parts.reduce((sum, [, us]) => sum + us, 0);
  const bareUs = bare.cpuUsPerRequest[key]!;
  return {
    bench,
    name: `CPU per call, ${what}: ${parts.map(([name]) => name).join(" + ")}`,
    value: total,
    unit: "µs",
    ceiling: { name: `${key} server µs`, value: bareUs },
    ratio: bareUs / total,
    note: `µs per call: ${parts.map(([name, us]) => `${name} ${Math.round(us)}`).join(", ")}; ${key} ${Math.round(bareUs)}`,
  };
}
