import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { connect } from "node:net";
import { join } from "node:path";
import { afterAll, expect, it } from "vitest";
import {
  botClient,
  eventually,
  freePort,
  Platform,
  isAlive,
  runningPids,
  spawnStarter,
  startReceiver,
  stopStarter,
  userMessage,
  type Starter,
} from "@starpost/testkit";

/**
 * `npm start` supervises its processes like compose's `restart: unless-stopped`: a killed service
 * and the private redis-server come back (with a line naming them), and Ctrl-C stops everything.
 * It starts one webhook worker and a second when the first has every slot of a queue shard in use.
 */
const dir = mkdtempSync(join(tmpdir(), "starpost-start-"));
let start: Starter | undefined;
afterAll(async () => {
  await stopStarter(start);
  rmSync(dir, { recursive: true, force: true });
}, 60_000);

const listening = (port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = connect(port, "127.0.0.1");
    socket.once("connect", () => (socket.destroy(), resolve(true)));
    socket.once("error", () => resolve(false));
  });

it("starts a second webhook worker on demand, restarts a killed service and the killed redis-server, and Ctrl-C stops everything", async () => {
  const port = await freePort();
  // From the sources: `npm start` runs dist/ (built first); e2e/test/build.test.ts runs the bundles.
  start = spawnStarter(dir, {
    PORT: String(port),
    LOG_LEVEL: "warn",
    // One slot per delivery queue shard: one drain at work makes the worker busy.
    WORKER_CONCURRENCY: "8",
  });
  const out = start.lines;
  const seen = (re: RegExp) => out.some((l) => re.test(l));
  const pids = await runningPids(start);
  expect([...pids.keys()].sort()).toEqual(["gateway", "invoices", "redis-server", "updates", "webhook-worker-1"]);

  // A delivery held by its receiver keeps the one slot of its shard: the worker says it is busy.
  const receiver = await startReceiver({ answer: (_r, n) => (n === 1 ? { delayMs: 1_000 } : undefined) });
  const platform = new Platform(`http://127.0.0.1:${port}`, /Bearer (\S+)/.exec(out.join("\n"))![1]!);
  const bot = await platform.createBot();
  expect((await botClient(platform.baseUrl, bot.token)("setWebhook", { url: receiver.url })).status).toBe(200);
  expect((await platform.pushUpdate(bot.id, userMessage(1, "hold this one"))).status).toBe(200);
  await eventually(
    () => seen(/^starpost: webhook-worker-2 started \(pid \d+\): webhook-worker-1 has every slot/),
    30_000,
    () => out.join("\n"),
  );
  pids.set("webhook-worker-2", Number(/webhook-worker-2 started \(pid (\d+)\)/.exec(out.join("\n"))![1]));
  await receiver.waitFor((got) => got.length === 1 && got[0]!.doneAt !== undefined);
  await receiver.close();
  const ready = async () => (await fetch(`http://127.0.0.1:${port}/readyz`).catch(() => undefined))?.ok === true;

  process.kill(pids.get("invoices")!, "SIGKILL");
  await eventually(
    () => seen(/^starpost: invoices exited \(SIGKILL\); restarting in \d+ ms \(try 1 of 5\)$/),
    10_000,
    () => out.join("\n"),
  );
  await eventually(ready, 30_000, "the gateway ready again");

  process.kill(pids.get("redis-server")!, "SIGKILL");
  await eventually(
    () => seen(/^starpost: redis-server exited \(SIGKILL\); restarting/),
    10_000,
    () => out.join("\n"),
  );
  await eventually(ready, 30_000, "the gateway ready again after redis");

  const child = start.child;
  const exited = new Promise<number | null>((r) => child.once("exit", (code) => r(code)));
  child.kill("SIGINT");
  expect(await exited).toBe(0);
  for (const [name, pid] of pids) expect(isAlive(pid), name).toBe(false);
  // The restarted ones too: nothing listens on the gateway's or the (restarted) Redis's port.
  const redisPort = Number(/Redis\s+redis:\/\/127\.0\.0\.1:(\d+)/.exec(out.join("\n"))![1]);
  for (const p of [port, redisPort]) expect(await listening(p), `port ${p}`).toBe(false);
}, 120_000);
