/**
 * Ceilings of this machine, measured now: one HTTP hop (a bare fastify server answering a fixed
 * JSON), a webhook receiver's own capacity under a load generator, and Redis XADD rate.
 *
 *   node --import tsx bench/run.ts ceilings
 */
import { spawnSync } from "node:child_process";
import { startRedis, stopProcess } from "@starpost/testkit";
import { ceilings, twoHopFloor, UPDATE_BODY } from "./lib/ceiling.ts";
import { autocannon } from "./lib/load.ts";
import { startScript } from "./lib/processes.ts";
import { report, type Figure } from "./lib/report.ts";

const figures: Figure[] = [];

const c = await ceilings({ connections: 64 });
const get = c.bare;
figures.push({
  bench: "ceiling",
  name: "bare fastify, fixed JSON (GET, 64 conns)",
  value: get.rps,
  unit: "req/s",
  note: `p50 ${get.p50} ms, p99 ${get.p99} ms; CPU ${Math.round(get.cpuUsPerRequest.bare!)} µs per call`,
});
for (const hop of ["tcp", "unix"] as const) {
  const f = c[hop];
  const name = `two-hop floor: fastify → undici pool → fastify, ${hop === "tcp" ? "TCP" : "Unix socket"} (GET, 64 conns)`;
  figures.push({
    bench: "ceiling",
    name,
    value: f.rps,
    unit: "req/s",
    ceiling: { name: "bare req/s", value: get.rps },
    ratio: f.rps / get.rps,
    note: `p50 ${f.p50} ms, p99 ${f.p99} ms; CPU ${Math.round(f.cpuUsPerRequest.floor!)} µs per call (both processes)`,
  });
}
// The hop's alternatives: HTTP/1.1 pipelining (8 requests in flight on each of 8 sockets) against
// the keep-alive pool (one in flight on each of 64), on the Unix socket.
const piped = await twoHopFloor("unix", { connections: 64 }, 8);
figures.push({
  bench: "ceiling",
  name: "two-hop floor, Unix socket, pipelining 8 on 8 sockets (GET, 64 conns)",
  value: piped.rps,
  unit: "req/s",
  ceiling: { name: "keep-alive pool req/s", value: c.unix.rps },
  ratio: piped.rps / c.unix.rps,
  note: `p50 ${piped.p50} ms, p99 ${piped.p99} ms; CPU ${Math.round(piped.cpuUsPerRequest.floor!)} µs per call (both processes)`,
});

const receiver = await startScript("./receiver.ts");
try {
  const rec = await autocannon({
    url: `http://127.0.0.1:${receiver.port}/`,
    method: "POST",
    body: UPDATE_BODY,
    connections: 40,
  });
  figures.push({
    bench: "ceiling",
    name: "webhook receiver, direct load (POST, 40 conns)",
    value: rec.rps,
    unit: "req/s",
    note: `p99 ${rec.p99} ms`,
  });
} finally {
  await stopProcess(receiver.child);
}

const redis = await startRedis();
try {
  const out = spawnSync(
    "redis-benchmark",
    ["-p", String(redis.port), "-n", "200000", "-P", "32", "-q", "XADD", "bench", "*", "u", "x".repeat(200)],
    { encoding: "utf8" },
  );
  const rate = Number(/([\d.]+) requests per second/.exec(out.stdout)?.[1] ?? NaN);
  figures.push({
    bench: "ceiling",
    name: "Redis XADD, 200-byte entries (pipeline 32, no AOF)",
    value: rate,
    unit: "ops/s",
  });
} finally {
  await redis.stop();
}

report(figures);
