import { spawn } from "node:child_process";
import { createRequire } from "node:module";
import { cpuMs } from "./processes.ts";

const require = createRequire(import.meta.url);
const AUTOCANNON = require.resolve("autocannon/autocannon.js");

export interface LoadResult {
  rps: number;
  p50: number;
  p99: number;
  errors: number;
  non2xx: number;
  total: number;
  /** CPU time per request of each process in `cpuOf`, in microseconds. */
  cpuUsPerRequest: Record<string, number>;
}

export interface LoadOptions {
  url: string;
  connections?: number;
  seconds?: number;
  method?: "GET" | "POST";
  body?: string;
  headers?: Record<string, string>;
  /** an unmeasured run first (JIT, connection pools); default 2 s, 0 for none. */
  warmupSeconds?: number;
  /** processes whose CPU time per request is measured over the measured run (not the warm-up). */
  cpuOf?: Record<string, number>;
}

/** Seconds per measured autocannon run: BENCH_SECONDS, default 8. */
export const SECONDS = Number(process.env.BENCH_SECONDS ?? 8);

/** Runs autocannon in its own process (the load generator must not share the measured one's CPU time slices). */
export async function autocannon(o: LoadOptions): Promise<LoadResult> {
  const warmup = o.warmupSeconds ?? 2;
  if (warmup > 0) await run({ ...o, seconds: warmup });
  const pids = Object.entries(o.cpuOf ?? {});
  const before = pids.map(([, pid]) => cpuMs(pid));
  const r = await run(o);
  for (const [i, [name, pid]] of pids.entries()) r.cpuUsPerRequest[name] = ((cpuMs(pid) - before[i]!) * 1000) / r.total;
  return r;
}

function run(o: LoadOptions): Promise<LoadResult> {
  const args = [
    AUTOCANNON,
    "--json",
    "-c",
    String(o.connections ?? 64),
    "-d",
    String(o.seconds ?? SECONDS),
    "-m",
    o.method ?? "GET",
  ];
  for (const [k, v] of Object.entries(o.headers ?? {})) args.push("-H", `${k}=${v}`);
  if (o.body !== undefined) args.push("-b", o.body, "-H", "content-type=application/json");
  args.push(o.url);
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { stdio: ["ignore", "pipe", "ignore"] });
    let out = "";
    child.stdout.on("data", (d) => (out += d));
    child.on("error", reject);
    child.on("exit", (code) => {
      try {
        const r = JSON.parse(out);
        resolve({
          rps: r.requests.average,
          p50: r.latency.p50,
          p99: r.latency.p99,
          errors: r.errors,
          non2xx: r.non2xx,
          total: r.requests.total,
          cpuUsPerRequest: {},
        });
      } catch {
        reject(new Error(`autocannon exited ${code}: ${out.slice(0, 200)}`));
      }
    });
  });
}

/** p-th percentile (0..100) of a list of numbers. */
export function percentile(values: number[], p: number): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}
