import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, expect, it } from "vitest";
import {
  botClient,
  eventually,
  freePort,
  Platform,
  spawnStarter,
  stopStarter,
  userMessage,
  type Starter,
} from "@starpost/testkit";

/**
 * Ctrl-C in the terminal (SIGINT to `npm start`'s process group) stops every process in order,
 * each one closing its own connections: nothing is logged at error level (pino level 50 or more)
 * in any log under <data dir>/logs.
 */
const dir = mkdtempSync(join(tmpdir(), "starpost-ctrl-c-"));
let start: Starter | undefined;
afterAll(async () => {
  await stopStarter(start);
  rmSync(dir, { recursive: true, force: true });
}, 60_000);

it("a Ctrl-C logs nothing at error level, and every service shuts down by itself", async () => {
  const port = await freePort();
  // Its own process group, as a shell gives a command: the terminal's SIGINT goes to the group.
  start = spawnStarter(dir, { PORT: String(port) }, { detached: true });
  const out = start.lines;
  await eventually(
    () => out.some((l) => l.startsWith("starpost is running")),
    60_000,
    () => out.join("\n"),
  );

  // Some work first: a bot polling and one with updates queued for its webhook.
  const platform = new Platform(`http://127.0.0.1:${port}`, /Bearer (\S+)/.exec(out.join("\n"))![1]!);
  const polling = await platform.createBot();
  expect((await platform.pushUpdate(polling.id, userMessage(1, "hi"))).status).toBe(200);
  expect((await botClient(platform.baseUrl, polling.token)("getUpdates", { timeout: 0 })).body.ok).toBe(true);
  const hooked = await platform.createBot();
  const setWebhook = { url: `http://127.0.0.1:${await freePort()}/nobody-listens` };
  expect((await botClient(platform.baseUrl, hooked.token)("setWebhook", setWebhook)).status).toBe(200);
  expect((await platform.pushUpdate(hooked.id, userMessage(2, "for the webhook"))).status).toBe(200);

  const child = start.child;
  const exited = new Promise<number | null>((r) => child.once("exit", (code) => r(code)));
  process.kill(-child.pid!, "SIGINT");
  expect(await exited).toBe(0);

  const logs = readdirSync(join(dir, "logs")).filter((f) => f.endsWith(".log"));
  expect(logs.sort()).toEqual(["gateway.log", "invoices.log", "updates.log", "webhook-worker-1.log"]);
  for (const file of logs) {
    const lines = readFileSync(join(dir, "logs", file), "utf8")
      .split("\n")
      .filter(Boolean);
    const errors = lines.filter((l) => !l.startsWith("{") || (JSON.parse(l) as { level: number }).level >= 50);
    expect(errors, file).toEqual([]);
    // Stopped by itself (SIGTERM from the starter), not killed: it said so.
    expect(
      lines.some((l) => l.includes('"msg":"shutting down"')),
      `${file} shut down by itself`,
    ).toBe(true);
  }
}, 120_000);
