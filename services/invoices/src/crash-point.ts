/**
 * Test-only crash points. A process started with `STARPOST_CRASH_POINT=<name>` kills itself with
 * SIGKILL the first time it reaches the point of that name, so a test can stop a process between
 * two exact steps (e.g. right after a payment's Lua step, before anything else). Unset — always,
 * outside tests — every point is a no-op.
 */
const armed = process.env.STARPOST_CRASH_POINT ?? "";

export function crashPoint(name: string): void {
  if (armed === name) process.kill(process.pid, "SIGKILL");
}
