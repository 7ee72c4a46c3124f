import { eventually } from "@starpost/testkit";
import { seededRandom, sleep, startChaosStack, type ChaosStack } from "./harness.ts";
import { checkInvariants } from "./invariants.ts";
import { createBots, newLedger, Workload } from "./workload.ts";

/**
 * The chaos run: the workload (workload.ts) against every service as its own supervised process
 * and a Redis with its append-only file; meanwhile a random service process is killed with
 * SIGKILL every few seconds and Redis itself once or more (restarted from its AOF by the
 * supervisor). Then, from the outside, the invariants (invariants.ts). The seed fixes the kill
 * schedule and the workload's choices (CHAOS_SEED replays it; timing still varies run to run).
 */
export interface ChaosOptions {
  seconds: number;
  seed: number;
  /** kills of Redis (spread over the run); at least 1. */
  redisKills?: number;
  log?: (line: string) => void;
}

export interface ChaosReport {
  seed: number;
  seconds: number;
  kills: Record<string, number>;
  /** ms from each kill until every process's /readyz is green again, by kind. */
  recoveries: Record<string, number[]>;
  ops: Record<string, number>;
  violations: string[];
  crashLooping: string[];
  events: string[];
}

const kindOf = (name: string) => name.replace(/-\d+$/, "");

async function killer(
  s: ChaosStack,
  opts: ChaosOptions,
  random: () => number,
  until: number,
  report: ChaosReport,
): Promise<void> {
  const started = Date.now();
  const n = Math.max(1, opts.redisKills ?? 1);
  const redisAt = Array.from({ length: n }, (_, i) => started + ((i + 1) / (n + 1)) * (until - started));
  while (Date.now() < until) {
    await sleep(1500 + random() * 2000); // pacing: "every few seconds"
    if (Date.now() >= until) break;
    let kind: string;
    let child;
    if (redisAt.length && Date.now() >= redisAt[0]!) {
      redisAt.shift();
      kind = "redis-server";
      child = s.local.redis.process;
    } else {
      const procs = s.local.stack.processes;
      const p = procs[Math.floor(random() * procs.length)]!;
      kind = kindOf(p.name);
      child = p.child;
    }
    const at = Date.now();
    const exited = new Promise((r) => child.once("exit", r));
    child.kill("SIGKILL");
    await exited;
    report.kills[kind] = (report.kills[kind] ?? 0) + 1;
    opts.log?.(`killed ${kind} (pid ${child.pid})`);
    await eventually(() => s.allReady(), 120_000, `every process ready after killing ${kind}`);
    (report.recoveries[kind] ??= []).push(Date.now() - at);
  }
}

export async function runChaos(opts: ChaosOptions): Promise<ChaosReport> {
  const random = seededRandom(opts.seed);
  const log = opts.log ?? (() => undefined);
  const report: ChaosReport = {
    seed: opts.seed,
    seconds: opts.seconds,
    kills: {},
    recoveries: {},
    ops: {},
    violations: [],
    crashLooping: [],
    events: [],
  };
  const s = await startChaosStack();
  try {
    const bots = await createBots(s);
    const ledger = newLedger(bots);
    const work = new Workload(s, bots, ledger, random);
    log(`chaos: seed ${opts.seed}, ${opts.seconds} s, ${bots.length} bots`);
    work.start();
    await killer(s, opts, random, Date.now() + opts.seconds * 1000, report);
    log("chaos: kills over; finishing the operations in hand");
    await work.stop();
    await eventually(() => s.allReady(), 120_000, "every process ready at the end");
    report.violations = await checkInvariants(s, bots, ledger, log);
    await work.stopPollers();
    report.ops = ledger.ops;
    report.violations.push(...ledger.refusals);
    report.crashLooping = s.supervisor.crashLooping;
    for (const name of report.crashLooping) report.violations.push(`${name} is crash-looping`);
    report.events = s.events;
    return report;
  } finally {
    await s.stop();
  }
}

const pct = (xs: number[], p: number) => {
  if (xs.length === 0) return NaN;
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]!;
};

/** The report as a text table (kills and recovery per kind, operations, violations). */
export function formatReport(r: ChaosReport): string {
  const lines = [
    `seed ${r.seed} (replay: CHAOS_SEED=${r.seed}), ${r.seconds} s of chaos`,
    "",
    "| process kind | kills | until /readyz green: p50 | max |",
    "|---|---|---|---|",
  ];
  for (const kind of Object.keys(r.kills).sort()) {
    const rec = r.recoveries[kind] ?? [];
    lines.push(`| ${kind} | ${r.kills[kind]} | ${pct(rec, 0.5)} ms | ${rec.length ? Math.max(...rec) : NaN} ms |`);
  }
  const all = Object.values(r.recoveries).flat();
  lines.push(
    `| all | ${Object.values(r.kills).reduce((a, b) => a + b, 0)} | ${pct(all, 0.5)} ms | ${all.length ? Math.max(...all) : NaN} ms |`,
    "",
  );
  lines.push("| operation | count |", "|---|---|");
  for (const [k, v] of Object.entries(r.ops)) lines.push(`| ${k} | ${v} |`);
  lines.push("", `invariant violations: ${r.violations.length}`, ...r.violations.slice(0, 50).map((v) => `  - ${v}`));
  lines.push(`processes crash-looping: ${r.crashLooping.length ? r.crashLooping.join(", ") : "none"}`);
  return lines.join("\n");
}
