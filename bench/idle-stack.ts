/**
 * The idle memory of the whole `npm start` stack: the starter, every service process (2 webhook
 * workers, as docker-compose.yml runs them) and its redis-server, summed from /proc over the
 * starter's process tree once the stack is up and has settled. Measured twice in the same run:
 * as `npm start` runs it (the starter and services from dist/ with plain node, built first), and
 * from the TypeScript sources under tsx (STARPOST_FROM_SOURCE=true) as it ran before the build.
 *
 *   node --import tsx bench/run.ts idle-stack
 */
import { spawn } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { freePort, REPO_ROOT, stopProcess } from "@starpost/testkit";
import { buildDist } from "../scripts/build.ts";
import { rssMb } from "./lib/processes.ts";
import { report, type Figure } from "./lib/report.ts";

const SETTLE_MS = 5_000;
const SETTLED_MS = 30_000;

/** Every process below `root` (children, grandchildren...), from /proc. */
function tree(root: number): number[] {
  const parent = new Map<number, number>();
  for (const d of readdirSync("/proc").filter((n) => /^\d+$/.test(n))) {
    try {
      const stat = readFileSync(`/proc/${d}/stat`, "utf8");
      parent.set(Number(d), Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]));
    } catch {
      // gone meanwhile
    }
  }
  const out = [root];
  for (let i = 0; i < out.length; i++) for (const [pid, ppid] of parent) if (ppid === out[i]) out.push(pid);
  return out;
}

const comm = (pid: number) => readFileSync(`/proc/${pid}/comm`, "utf8").trim();

interface Reading {
  total: number;
  parts: string;
  starter: number;
  count: number;
}

/** RSS of every process of the tree under `root`, now. */
function reading(root: number): Reading {
  const each = tree(root).map((pid) => ({ pid, name: comm(pid), mb: rssMb(pid) }));
  return {
    total: each.reduce((s, p) => s + p.mb, 0),
    parts: each.map((p) => `${p.name} ${Math.round(p.mb)}`).join(", "),
    starter: each[0]!.mb,
    count: each.length,
  };
}

/**
 * The stack's RSS 5 s after it said it is running, and again once it has been idle for
 * SETTLED_MS: V8 collects what the start left behind only when a process has allocated little
 * for a while (its memory reducer, about 16 s in), so the second reading is the stack at rest.
 */
async function idleStack(args: string[], env: Record<string, string>): Promise<{ early: Reading; settled: Reading }> {
  const data = mkdtempSync(join(tmpdir(), "starpost-idle-"));
  const child = spawn(process.execPath, args, {
    cwd: REPO_ROOT,
    env: { ...process.env, ...env, PORT: String(await freePort()), STARPOST_DATA_DIR: data, LOG_LEVEL: "warn" },
    stdio: ["ignore", "pipe", "inherit"],
  });
  try {
    await new Promise<void>((resolve, reject) => {
      child.once("exit", (code) => reject(new Error(`starter exited ${code}`)));
      createInterface({ input: child.stdout! }).on(
        "line",
        (line) => line.startsWith("starpost is running") && resolve(),
      );
    });
    await new Promise((r) => setTimeout(r, SETTLE_MS));
    const early = reading(child.pid!);
    await new Promise((r) => setTimeout(r, SETTLED_MS - SETTLE_MS));
    return { early, settled: reading(child.pid!) };
  } finally {
    await stopProcess(child, "SIGINT");
    rmSync(data, { recursive: true, force: true });
  }
}

await buildDist();
const { early: built, settled } = await idleStack([join(REPO_ROOT, "dist/start.mjs")], {});
const { early: source } = await idleStack(["--import", "tsx", join(REPO_ROOT, "scripts/start.ts")], {
  STARPOST_FROM_SOURCE: "true",
});
const figures: Figure[] = [
  {
    bench: "idle-stack",
    name: `npm start idle RSS, every process (${built.count}: starter, services, 2 workers, redis), built JS, 5 s after the start`,
    value: built.total,
    unit: "MB",
    target: "<= 400",
    ceiling: { name: "from sources under tsx MB", value: source.total },
    ratio: built.total / source.total,
    note: `MB each: ${built.parts}`,
  },
  {
    bench: "idle-stack",
    name: `the same, idle ${SETTLED_MS / 1000} s after the start`,
    value: settled.total,
    unit: "MB",
    target: "<= 400",
    note: `MB each: ${settled.parts}`,
  },
  {
    bench: "idle-stack",
    name: "npm start starter process RSS, built JS",
    value: built.starter,
    unit: "MB",
    ceiling: { name: "under tsx MB", value: source.starter },
    ratio: built.starter / source.starter,
  },
  {
    bench: "idle-stack",
    name: `idle RSS from sources under tsx (${source.count} processes)`,
    value: source.total,
    unit: "MB",
    note: `MB each: ${source.parts}`,
  },
];
report(figures);
