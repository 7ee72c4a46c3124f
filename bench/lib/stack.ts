/**
 * The starpost under test: every service of docker-compose.yml its own OS process (the compose
 * topology, through @starpost/testkit) on a private redis-server with the append-only file on and
 * fsync always, as durable as starpost can be run. BENCH_AOF=no turns the file off to show what
 * durability costs.
 *
 * The services run from the production build (`pnpm run build`, into a temporary folder) with
 * plain node, as `npm start` and the image run them; BENCH_FROM_SOURCE=true runs the TypeScript
 * sources under tsx instead, as the test suites do. Gateway and services talk over Unix sockets,
 * as under `npm start` (INTERNAL_SOCKET_DIR); BENCH_INTERNAL=tcp makes them use TCP.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startLocalStack, type LocalStack } from "@starpost/testkit";
import { buildDist } from "../../scripts/build.ts";

export const PLATFORM_TOKEN = "bench-platform-token-0123456789";

export type BenchStack = LocalStack;

let built: Promise<string> | undefined;
/** The bundles, built once per bench process (removed when it exits). */
function benchDist(): Promise<string> {
  built ??= (async () => {
    const dir = mkdtempSync(join(tmpdir(), "starpost-bench-dist-"));
    process.once("exit", () => rmSync(dir, { recursive: true, force: true }));
    await buildDist(dir);
    return dir;
  })();
  return built;
}

export const fromSource = () => process.env.BENCH_FROM_SOURCE === "true";

export async function startBenchStack(
  opts: {
    workers?: number;
    env?: Record<string, string>;
    aof?: "always" | "everysec" | "no";
    nodeArgs?: string[];
    dist?: string;
    /** each line a service prints (its name: "updates", "gateway", …). */
    onLine?: (name: string, line: string) => void;
  } = {},
): Promise<BenchStack> {
  const aof = opts.aof ?? (process.env.BENCH_AOF === "no" ? "no" : "always");
  return startLocalStack({
    appendonly: aof !== "no",
    appendfsync: aof === "no" ? undefined : aof,
    platformToken: PLATFORM_TOKEN,
    workers: opts.workers ?? 0,
    nodeArgs: opts.nodeArgs,
    onLine: opts.onLine,
    dist: opts.dist ?? (fromSource() ? undefined : await benchDist()),
    env: { LOG_LEVEL: "warn", ...opts.env },
    extraEnv: process.env.BENCH_INTERNAL === "tcp" ? {} : { INTERNAL_SOCKET_DIR: mkdtempSync(join(tmpdir(), "sp-")) },
  });
}

/** Whether the Redis under test writes an append-only file, for the figures' names. */
export const durability = () => (process.env.BENCH_AOF === "no" ? "no AOF" : "AOF fsync always");
