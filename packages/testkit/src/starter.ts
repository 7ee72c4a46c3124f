import { spawn, type ChildProcess } from "node:child_process";
import { readFileSync, readlinkSync } from "node:fs";
import { createInterface } from "node:readline";
import { stopProcess, track } from "./child-processes.ts";
import { REPO_ROOT } from "./compose-file.ts";
import { eventually } from "./wait.ts";

/** `starpost start` (from the sources) as a test runs it, with the lines it printed. */
export interface Starter {
  child: ChildProcess;
  /** its stdout and stderr lines, as they come. */
  lines: string[];
  dataDir: string;
}

/**
 * Runs `starpost start` from the sources in `dataDir` with only PATH and `env` in its
 * environment; `detached` gives it a process group of its own, as a shell gives a command.
 */
export function spawnStarter(dataDir: string, env: Record<string, string>, opts: { detached?: boolean } = {}): Starter {
  const child = track(
    spawn(process.execPath, ["--import", "tsx", "packages/cli/src/main.ts", "start"], {
      cwd: REPO_ROOT,
      env: { PATH: process.env.PATH ?? "", STARPOST_DATA_DIR: dataDir, STARPOST_FROM_SOURCE: "true", ...env },
      stdio: ["ignore", "pipe", "pipe"],
      detached: opts.detached ?? false,
    }),
  );
  const lines: string[] = [];
  for (const s of [child.stdout!, child.stderr!]) createInterface({ input: s }).on("line", (l) => lines.push(l));
  return { child, lines, dataDir };
}

/**
 * Waits (up to `timeoutMs`) for the starter's "starpost is running" line, and answers the pids
 * it names, by process ("gateway", "redis-server", "webhook-worker-1", …).
 */
export async function runningPids(starter: Starter, timeoutMs = 60_000): Promise<Map<string, number>> {
  const line = () => starter.lines.find((l) => l.startsWith("starpost is running"));
  await eventually(
    () => line() !== undefined,
    timeoutMs,
    () => starter.lines.join("\n"),
  );
  return new Map([...line()!.matchAll(/([a-z0-9-]+) pid (\d+)/g)].map((m) => [m[1]!, Number(m[2])]));
}

/**
 * A test's teardown: the starter stops its stack in order (SIGTERM); whatever it left (its
 * processes run in process groups of their own, so they outlive a starter that did not stop them)
 * is killed by the pids its "starpost is running" line named, if they still belong to this stack.
 */
export async function stopStarter(starter: Starter | undefined): Promise<void> {
  if (!starter) return;
  await stopProcess(starter.child, "SIGTERM", 30_000);
  const running = starter.lines.find((l) => l.startsWith("starpost is running")) ?? "";
  for (const [, pid] of running.matchAll(/ pid (\d+)/g)) {
    try {
      // Only a process of this stack, not one given a freed pid since: the services have the data
      // dir in their environment, redis-server works in it (it rewrites its arguments and environment).
      const own =
        readlinkSync(`/proc/${pid}/cwd`).startsWith(starter.dataDir) ||
        readFileSync(`/proc/${pid}/environ`, "utf8").includes(starter.dataDir);
      if (own) process.kill(Number(pid), "SIGKILL");
    } catch {
      // already gone
    }
  }
}
