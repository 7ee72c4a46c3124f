import { spawn } from "node:child_process";
import { once } from "node:events";
import { fileURLToPath } from "node:url";
import { createInterface } from "node:readline";
import { expect, it } from "vitest";
import { eventually, isAlive, stopProcess, track } from "@starpost/testkit";

/**
 * A starter (npm start) runs its processes in process groups of their own, so a signal reaches
 * the starter only: Ctrl-C, SIGTERM and SIGHUP (the terminal closed) each stop them in order,
 * then the starter exits.
 */
const childProcesses = fileURLToPath(new URL("../src/child-processes.ts", import.meta.url));
const starter = `
import { spawn } from "node:child_process";
import { stopOnSignal, stopProcess, track } from ${JSON.stringify(childProcesses)};
const child = track(spawn("sleep", ["600"], { stdio: "ignore", detached: true }));
stopOnSignal(async () => {
  await stopProcess(child);
  process.stdout.write("stopped its process\\n");
});
process.stdout.write("running " + child.pid + "\\n");
`;

for (const signal of ["SIGHUP", "SIGTERM", "SIGINT"] as const) {
  it(`${signal} stops the starter's processes, then the starter exits 0`, async () => {
    const start = track(
      spawn(process.execPath, ["--import", "tsx", "--input-type=module", "-e", starter], {
        stdio: ["ignore", "pipe", "inherit"],
      }),
    );
    const out: string[] = [];
    createInterface({ input: start.stdout! }).on("line", (l) => out.push(l));
    let pid = 0;
    try {
      await eventually(
        () => out.some((l) => l.startsWith("running ")),
        20_000,
        () => out.join("\n"),
      );
      pid = Number(out.find((l) => l.startsWith("running "))!.split(" ")[1]);
      expect(isAlive(pid)).toBe(true);
      const exited = once(start, "exit");
      start.kill(signal);
      expect((await exited)[0]).toBe(0);
      expect(out).toContain("stopped its process");
      expect(isAlive(pid)).toBe(false);
    } finally {
      await stopProcess(start, "SIGKILL");
      if (pid && isAlive(pid)) process.kill(pid, "SIGKILL");
    }
  }, 30_000);
}
