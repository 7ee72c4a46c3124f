import { spawn } from "node:child_process";
import { expect, it } from "vitest";
import { eventually, Supervisor, track } from "@starpost/testkit";

const node = (code: string) => track(spawn(process.execPath, ["-e", code], { stdio: "ignore" }));

it("restarts a process that dies, with growing backoff and a line naming it", async () => {
  const lines: string[] = [];
  const supervisor = new Supervisor({ log: (l) => lines.push(l), baseDelayMs: 20, maxTries: 5 });
  let spawned = 0;
  // Dies twice, then stays up.
  const respawn = () => node(++spawned < 3 ? "process.exit(2)" : "setTimeout(() => {}, 60_000)");
  const first = respawn();
  supervisor.watch("flaky", first, respawn);
  await eventually(() => spawned === 3);
  expect(lines).toEqual([
    "flaky exited (code 2); restarting in 20 ms (try 1 of 5)",
    "flaky exited (code 2); restarting in 40 ms (try 2 of 5)",
  ]);
  expect(supervisor.state.get("flaky")).toMatchObject({ restarts: 2, gaveUp: false });
  expect(supervisor.crashLooping).toEqual([]);
  supervisor.stop();
});

it("gives up on a process that keeps crashing, and says so", async () => {
  const lines: string[] = [];
  const givenUp: string[] = [];
  const supervisor = new Supervisor({
    log: (l) => lines.push(l),
    baseDelayMs: 5,
    maxTries: 3,
    onGiveUp: (name) => givenUp.push(name),
  });
  const respawn = () => node("process.exit(1)");
  supervisor.watch("broken", respawn(), respawn);
  await eventually(() => supervisor.crashLooping.length === 1);
  expect(supervisor.crashLooping).toEqual(["broken"]);
  expect(lines.at(-1)).toBe("broken keeps crashing (3 restarts, each dying within 10 s): giving up on it");
  expect(supervisor.state.get("broken")?.restarts).toBe(3);
  expect(givenUp).toEqual(["broken"]);
});

it("restarts nothing once stopped", async () => {
  const supervisor = new Supervisor({ log: () => undefined, baseDelayMs: 5 });
  let spawned = 0;
  const respawn = () => (spawned++, node("setTimeout(() => {}, 60_000)"));
  const child = respawn();
  supervisor.watch("kept", child, respawn);
  supervisor.stop();
  const exited = new Promise((r) => child.once("exit", r));
  child.kill("SIGKILL");
  await exited;
  expect(spawned).toBe(1);
});
