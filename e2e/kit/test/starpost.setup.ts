// vitest's globalSetup: uses the starpost that STARPOST_URL names, or starts one (`starpost start`
// on a free port, in a temporary data directory) for the run and stops it after.
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";

export default async function setup() {
  if (process.env.STARPOST_URL) return;
  const dataDir = mkdtempSync(join(tmpdir(), "starpost-"));
  const starpost = spawn("npx", ["starpost", "start", "--port", "0", "--data-dir", dataDir], {
    stdio: ["ignore", "pipe", "inherit"],
    detached: true, // its own process group, stopped as one with Ctrl-C's signal
  });
  const exported = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error("starpost did not start within 60 s")), 60_000);
    starpost.once("exit", (code) => reject(new Error(`starpost exited with ${code}`)));
    createInterface({ input: starpost.stdout! }).on("line", (line) => {
      if (line.startsWith("export ")) (clearTimeout(timer), resolve(line));
    });
  });
  // export STARPOST_URL=… STARPOST_PLATFORM_TOKEN=…: the test workers inherit these.
  for (const [, name, value] of exported.matchAll(/(\w+)=(\S+)/g)) process.env[name!] = value;
  return async () => {
    const exited = new Promise((resolve) => starpost.once("exit", resolve));
    process.kill(-starpost.pid!, "SIGINT");
    await exited;
    rmSync(dataDir, { recursive: true, force: true });
  };
}
