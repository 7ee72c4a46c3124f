import { execFile } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { botClient, readCompose, startLocalStack, stopProcess, userMessage, type LocalStack } from "@starpost/testkit";
import { buildDist } from "../../scripts/build.ts";

// The production build (`pnpm run build`): what the image runs, started here the same way, with
// plain node from a fresh dist/ folder, on a private Redis.

const run = promisify(execFile);
const dist = mkdtempSync(join(tmpdir(), "starpost-dist-"));
let built: Awaited<ReturnType<typeof buildDist>>;
let local: LocalStack;

beforeAll(async () => {
  built = await buildDist(dist);
  local = await startLocalStack({ dist, env: { LOG_LEVEL: "warn" } });
}, 120_000);
afterAll(async () => {
  await local?.stop();
  rmSync(dist, { recursive: true, force: true });
});

/** dist/healthcheck.mjs for one process, with that process's environment, as the image's HEALTHCHECK runs it. */
const healthcheck = (service: string, env: Record<string, string>) =>
  run(process.execPath, [join(dist, "healthcheck.mjs"), service], {
    env: { PATH: process.env.PATH ?? "", ...env },
  }).then(
    () => 0,
    (err: { code: number }) => err.code,
  );

describe("pnpm run build", () => {
  it("writes one bundle per compose service, the health check, the starter, the Lua scripts and the console, and nothing else", () => {
    const bundles = readCompose({
      PLATFORM_TOKEN: "only-to-read-the-file",
      INTERNAL_TOKEN: "only-to-read-the-file",
    }).map((s) => s.bundle.replace("dist/", ""));
    expect(bundles.sort()).toEqual(built.services.map((s) => `${s}.mjs`).sort());
    expect(readdirSync(dist).sort()).toEqual(
      [...bundles, "healthcheck.mjs", "starpost.mjs", ...built.lua, "console"].sort(),
    );
    expect(built.lua.length).toBeGreaterThanOrEqual(8);
  });

  it("leaves the parameter rules of other services' methods out of the gateway's bundle", () => {
    // The gateway knows only which service owns a method: sendInvoice's and sendMessage's rules
    // ship with invoices alone (the bundles keep their functions' names).
    const rules = ["SendInvoiceParams", "checkProduct", "SendMessageParams", "readReplyMarkup", "parseEntities"];
    const gateway = readFileSync(join(dist, "gateway.mjs"), "utf8");
    const invoices = readFileSync(join(dist, "invoices.mjs"), "utf8");
    expect(rules.filter((r) => gateway.includes(r))).toEqual([]);
    expect(rules.filter((r) => !invoices.includes(r))).toEqual([]);
    expect(gateway.includes("SetWebhookParams")).toBe(false);
    expect(gateway.includes("GetUpdatesParams")).toBe(true);
  });

  it("runs every service with plain node, without tsx", () => {
    for (const p of local.stack.processes) {
      expect(p.child.spawnargs.slice(1)).toEqual([join(dist, `${p.service}.mjs`)]);
    }
  });

  it("serves the Bot API from the bundles: getMe, and updates through the Lua scripts to getUpdates", async () => {
    const bot = await local.platform.createBot();
    const call = botClient(local.gatewayUrl, bot.token);
    expect((await call("getMe")).body.result).toMatchObject({ id: bot.id, is_bot: true });
    const pushed = await local.platform.pushUpdate(bot.id, userMessage(42, "built"));
    expect(pushed.status).toBe(200);
    const got = await call("getUpdates", { timeout: 5 });
    expect(got.body.result.map((u: { message: { text: string } }) => u.message.text)).toEqual(["built"]);
  });

  it("serves the console, the OpenAPI description and prom-client's metrics from the bundles", async () => {
    const page = await fetch(`${local.gatewayUrl}/console/`);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('<script type="module" src="/console/console.js">');
    expect((await (await fetch(`${local.gatewayUrl}/platform/v1/openapi.json`)).json()).openapi).toBe("3.1.0");
    expect(await (await fetch(`${local.gatewayUrl}/metrics`)).text()).toMatch(
      /^nodejs_eventloop_lag_p99_seconds\{service="gateway"\} /m,
    );
  });

  it("health check: exit 0 for each ready service, 1 once the service is gone or its Redis is", async () => {
    for (const p of local.stack.processes) expect(await healthcheck(p.service, p.env)).toBe(0);
    const worker = local.stack.processes.find((p) => p.service === "webhook-worker")!;
    await stopProcess(worker.child, "SIGTERM");
    expect(await healthcheck(worker.service, worker.env)).toBe(1);
    // The check is readiness: a process that runs but cannot reach Redis is unhealthy too.
    await stopProcess(local.redis.process, "SIGKILL");
    const running = local.stack.processes.filter((p) => p !== worker);
    const started = Date.now();
    expect(await Promise.all(running.map((p) => healthcheck(p.service, p.env)))).toEqual(running.map(() => 1));
    expect(Date.now() - started).toBeLessThan(10_000);
  });
});
