import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, expect, it } from "vitest";
import {
  botClient,
  eventually,
  freePort,
  isAlive,
  Platform,
  runningPids,
  spawnStarter,
  stopStarter,
  userMessage,
  type Starter,
} from "@starpost/testkit";

/**
 * A starter killed with SIGKILL runs none of its handlers. Its services see their IPC channel
 * close and stop by themselves; the redis-server it started in the data dir is shut down by the
 * next start there before its own starts (two servers on one append-only file would corrupt it),
 * and what the first stack acknowledged is still there. A start in a data dir whose starter still
 * runs is refused instead.
 */
const dir = mkdtempSync(join(tmpdir(), "starpost-killed-"));
let first: Starter | undefined;
let second: Starter | undefined;
afterAll(async () => {
  await stopStarter(second);
  await stopStarter(first);
  rmSync(dir, { recursive: true, force: true });
}, 60_000);

it("a starter killed with SIGKILL: its services stop, the next start shuts down the redis-server it left, nothing acknowledged is lost; a start beside a running one is refused", async () => {
  const port = await freePort();
  first = spawnStarter(dir, { PORT: String(port), LOG_LEVEL: "warn" });
  const pids = await runningPids(first);
  const platform = new Platform(`http://127.0.0.1:${port}`, /Bearer (\S+)/.exec(first.lines.join("\n"))![1]!);
  const bot = await platform.createBot();
  expect((await platform.pushUpdate(bot.id, userMessage(1, "kept"))).status).toBe(200);

  first.child.kill("SIGKILL");
  const services = ["gateway", "invoices", "updates", "webhook-worker-1"];
  await eventually(() => services.every((name) => !isAlive(pids.get(name)!)), 30_000, "the services stopped");
  expect(isAlive(pids.get("redis-server")!)).toBe(true);

  const port2 = await freePort();
  second = spawnStarter(dir, { PORT: String(port2), LOG_LEVEL: "warn" });
  await runningPids(second);
  expect(isAlive(pids.get("redis-server")!)).toBe(false);
  const bots = botClient(`http://127.0.0.1:${port2}`, bot.token);
  const texts = async () =>
    ((await bots("getUpdates", {})).body.result as { message: { text: string } }[]).map((u) => u.message.text);
  expect(await texts()).toEqual(["kept"]);

  // A start in a data dir whose starter runs is refused, and leaves that stack alone.
  const third = spawnStarter(dir, { PORT: String(await freePort()), LOG_LEVEL: "warn" });
  const code = await new Promise<number | null>((resolve) => third.child.once("close", resolve));
  expect(code).toBe(1);
  expect(third.lines.join("\n")).toContain(`starpost is already running in ${dir} (pid ${second.child.pid})`);
  expect(await texts()).toEqual(["kept"]);
}, 120_000);
