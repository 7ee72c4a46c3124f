import { spawn, type ChildProcess } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { createInterface } from "node:readline";

/** Starts a bench helper script in its own process and waits for its "listening <port>" line. */
export function startScript(
  script: string,
  env: Record<string, string> = {},
): Promise<{ port: number; child: ChildProcess }> {
  const path = fileURLToPath(new URL(script, new URL("./", import.meta.url)));
  const child = spawn(process.execPath, ["--import", "tsx", path], {
    stdio: ["ignore", "pipe", "inherit"],
    env: { ...process.env, ...env },
  });
  return new Promise((resolve, reject) => {
    child.on("exit", (code) => reject(new Error(`${script} exited ${code}`)));
    createInterface({ input: child.stdout! }).on("line", (line) => {
      const m = /^listening (\d+)/.exec(line);
      if (m) resolve({ port: Number(m[1]), child });
    });
  });
}

/** Resident set size of a process in MB, from /proc. */
export function rssMb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
  return kb / 1024;
}

/** CPU time (user + system) a process has used so far, in ms, from /proc (clock ticks of 10 ms). */
export function cpuMs(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  // Fields after the command name, which is in parentheses and may hold spaces.
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

/** Every process below `root` (children, grandchildren...), `root` first, from /proc. */
export function processTree(root: number): number[] {
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

/** A process's command name, from /proc. */
export const processName = (pid: number) => readFileSync(`/proc/${pid}/comm`, "utf8").trim();
