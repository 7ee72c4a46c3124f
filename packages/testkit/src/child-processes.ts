import type { ChildProcess } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";

/**
 * Processes the testkit starts (redis-servers, services). Any still running when this process
 * exits (a test file that failed before its teardown, a Ctrl-C) or is told to end by a signal (a
 * test runner ending a worker whose hook timed out) is killed, so nothing is left holding ports,
 * memory and CPU.
 */
const running = new Set<ChildProcess>();
const killAll = () => {
  for (const child of running) child.kill("SIGKILL");
};
/** A starter (stopOnSignal) stops its processes in order on a signal; only survivors are killed at exit. */
let orderlyStop = false;
process.once("exit", killAll);
for (const signal of ["SIGTERM", "SIGINT", "SIGHUP"] as const) {
  process.once(signal, () => {
    if (orderlyStop) return;
    killAll();
    process.kill(process.pid, signal); // then end as the signal would have
  });
}

export function track<T extends ChildProcess>(child: T): T {
  running.add(child);
  child.once("exit", () => running.delete(child));
  return child;
}

/** Sends `signal` and waits for the exit; a process still running after `graceMs` is killed. */
export function stopProcess(child: ChildProcess, signal: NodeJS.Signals = "SIGTERM", graceMs = 15_000): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill("SIGKILL"), graceMs);
    child.once("exit", () => {
      clearTimeout(timer);
      resolve();
    });
    child.kill(signal);
  });
}

/**
 * For a starter script: Ctrl-C, SIGTERM or SIGHUP runs `stop` once, then exits. Returns whether a stop
 * has begun (a process that exits then is being stopped, not crashing).
 */
export function stopOnSignal(stop: () => Promise<void>): () => boolean {
  orderlyStop = true;
  let stopping = false;
  const run = async () => {
    if (stopping) return;
    stopping = true;
    process.stdout.write("\nstopping starpost...\n");
    await stop();
    process.exit(0);
  };
  // SIGHUP too (the terminal closed): a listener suppresses Node's default exit, so without this
  // the starter would keep running with nobody to stop it.
  for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"] as const) process.on(signal, () => void run());
  return () => stopping;
}

/** Whether this system has Linux's /proc (macOS has not). */
export const HAS_PROC = existsSync("/proc/self/stat");

/**
 * The fields of /proc/<pid>/stat after the command's name (the 3rd field on: state, ppid, …;
 * [19] is the start time), or undefined without /proc or once the process is gone.
 */
export function procStat(pid: number): string[] | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  } catch {
    return undefined;
  }
}

/**
 * True while a process with this pid runs. One that exited and that nobody has waited for yet (a
 * zombie: its parent died, and the machine's init has not reaped it) has ended too.
 */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  if (!HAS_PROC) return true;
  const state = procStat(pid)?.[0];
  return state !== undefined && state !== "Z";
}
