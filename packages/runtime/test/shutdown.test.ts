import { spawn } from "node:child_process";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

/**
 * onShutdown (shutdown.ts) when the process that started this one over an IPC channel is gone:
 * the process in parent-gone.ts runs until stopped, and only onShutdown's stop exits with code 0.
 */
describe("a process whose starter is gone", () => {
  const run = (when: "at-once" | "after-disconnect") => {
    const child = spawn(process.execPath, ["--import", "tsx", join(import.meta.dirname, "parent-gone.ts")], {
      env: { ...process.env, WHEN: when },
      stdio: ["ignore", "ignore", "inherit", "ipc"],
    });
    const exited = new Promise<number | null>((resolve) => child.once("exit", resolve));
    return { child, exited };
  };

  it("stops as on SIGTERM when its IPC channel closes", async () => {
    const { child, exited } = run("at-once");
    child.once("message", () => child.disconnect());
    expect(await exited).toBe(0);
  });

  it("stops too when the channel closed while it was starting, before onShutdown ran", async () => {
    const { child, exited } = run("after-disconnect");
    child.once("spawn", () => child.disconnect());
    expect(await exited).toBe(0);
  });
});
