/**
 * The idle memory of the whole `npm start` process group: npm itself, its shell, the starter,
 * every service process (one webhook worker: `npm start` starts a second on demand) and its
 * redis-server, summed from /proc over npm's process tree once the stack is up and has settled.
 * Measured twice in the same run: `npm start` as a user runs it (the starter and services from
 * dist/ with plain node, built first), and the starter from the TypeScript sources under tsx
 * (STARPOST_FROM_SOURCE=true) as it ran before the build.
 *
 *   node --import tsx bench/run.ts idle-stack
 */
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { freePort, REPO_ROOT, stopProcess } from "@starpost/testkit";
import { processName, processTree, rssMb } from "./lib/processes.ts";
import { report, type Figure } from "./lib/report.ts";

const SETTLE_MS = 5_000;
const SETTLED_MS = 30_000;

interface Reading {
  total: number;
  parts: string;
  /** the root process: npm, or the starter run directly. */
  root: number;
  count: number;
}

/** RSS of every process of the tree under `root`, now. */
function reading(root: number): Reading {
  const each = processTree(root).map((pid) => ({ pid, name: processName(pid), mb: rssMb(pid) }));
  return {
    total: each.reduce((s, p) => s + p.mb, 0),
    parts: each.map((p) => `${p.name} ${Math.round(p.mb)}`).join(", "),
    root: each[0]!.mb,
    count: each.length,
  };
}

/**
 * The stack's RSS 5 s after it said it is running, and again once it has been idle for
 * SETTLED_MS: V8 collects what the start left behind only when a process has allocated little
 * for a while (its memory reducer, about 16 s in), so the second reading is the stack at rest.
 */
async function idleStack(
  command: string,
  args: string[],
  env: Record<string, string>,
): Promise<{ early: Reading; settled: Reading }> {
  const data = mkdtempSync(join(tmpdir(), "starpost-idle-"));
  // Its own process group, stopped as Ctrl-C in a terminal stops it: SIGINT to the whole group.
  const child = spawn(command, args, {
    cwd: REPO_ROOT,
    env: { ...process.env, ...env, PORT: String(await freePort()), STARPOST_DATA_DIR: data, LOG_LEVEL: "warn" },
    stdio: ["ignore", "pipe", "inherit"],
    detached: true,
  });
  try {
    await new Promise<void>((resolve, reject) => {
      child.once("exit", (code) => reject(new Error(`${command} exited ${code}`)));
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
    const exited = new Promise((r) => child.once("exit", r));
    if (child.exitCode === null) process.kill(-child.pid!, "SIGINT");
    await Promise.race([exited, new Promise((r) => setTimeout(r, 20_000))]);
    await stopProcess(child, "SIGKILL");
    rmSync(data, { recursive: true, force: true });
  }
}

const { early: built, settled } = await idleStack("npm", ["start"], {});
const { early: source } = await idleStack(
  process.execPath,
  ["--import", "tsx", join(REPO_ROOT, "packages/cli/src/main.ts"), "start"],
  {
    STARPOST_FROM_SOURCE: "true",
  },
);
const figures: Figure[] = [
  {
    bench: "idle-stack",
    name: `npm start idle RSS, the process group (${built.count}: npm, sh, starter, services, 1 worker, redis), 5 s after the start`,
    value: built.total,
    unit: "MB",
    ceiling: { name: "from sources under tsx MB", value: source.total },
    ratio: built.total / source.total,
    note: `MB each: ${built.parts}`,
  },
  {
    bench: "idle-stack",
    name: `the same, idle ${SETTLED_MS / 1000} s after the start (the issue's figure)`,
    value: settled.total,
    unit: "MB",
    target: "<= 400",
    note: `MB each: ${settled.parts}`,
  },
  {
    bench: "idle-stack",
    name: "npm start's own npm process RSS (in the group above)",
    value: built.root,
    unit: "MB",
  },
  {
    bench: "idle-stack",
    name: `idle RSS of the starter from sources under tsx (${source.count} processes), 5 s after the start`,
    value: source.total,
    unit: "MB",
    note: `MB each: ${source.parts}`,
  },
];
report(figures);
