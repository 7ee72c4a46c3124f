import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { request } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { keys } from "@starpost/shared";
import { createLogger, createRedis, webhookFields, type Redis } from "@starpost/runtime";
import { INTERNAL_TOKEN_HEADER } from "@starpost/http";
import { botClient, eventually, startLocalStack, userMessage, type LocalStack } from "@starpost/testkit";

// The stack as `npm start` runs it: services on TCP and on Unix sockets, webhooks to private
// networks allowed. An attacker owns one bot and can reach every port on the machine.
const dir = mkdtempSync(join(tmpdir(), "starpost-security-"));
const INTERNAL_TOKEN = `security-${randomBytes(12).toString("hex")}`;
let local: LocalStack;
let redis: Redis;
beforeAll(async () => {
  local = await startLocalStack({
    extraEnv: { INTERNAL_SOCKET_DIR: dir },
    env: { LOG_LEVEL: "warn", INTERNAL_TOKEN, WEBHOOK_ALLOW_PRIVATE_NETWORKS: "true" },
  });
  redis = createRedis({ url: local.redis.url, logger: createLogger("test", "silent"), role: "attacker" });
}, 120_000);
afterAll(async () => {
  redis?.disconnect();
  await local?.stop();
  rmSync(dir, { recursive: true, force: true });
});

type Listener = { name: string; port?: number; socketPath?: string };

/** One request exactly as written (request target included); its status and body. */
function raw(to: Listener, method: string, target: string, headers: Record<string, string> = {}, body?: string) {
  return new Promise<{ status: number; body: string }>((resolve, reject) => {
    const req = request(
      {
        ...(to.socketPath ? { socketPath: to.socketPath } : { host: "127.0.0.1", port: to.port }),
        method,
        path: target,
        headers: { ...headers, ...(body ? { "content-type": "application/json" } : {}) },
        agent: false,
      },
      (res) => {
        let text = "";
        res.setEncoding("utf8").on("data", (c: string) => (text += c));
        res.on("end", () => resolve({ status: res.statusCode!, body: text }));
      },
    );
    req.once("error", reject);
    req.end(body);
  });
}

/** Every spelling of an internal path that some layer could read as the path itself. */
function spellings(path: string): string[] {
  const rest = path.slice("/internal".length);
  const [first, ...others] = rest.slice(1).split("/");
  return [
    `/%69nternal${rest}`,
    `/%69%6e%74%65%72%6e%61%6c${rest}`,
    `/%2569nternal${rest}`,
    `/INTERNAL${rest}`,
    `/Internal${rest.toUpperCase()}`,
    `//internal${rest}`,
    `///internal${rest}`,
    `/internal/${rest}`,
    `/./internal${rest}`,
    `/x/../internal${rest}`,
    `/%2e/internal${rest}`,
    `/x/%2e%2e/internal${rest}`,
    `/internal/./${rest.slice(1)}`,
    `/internal%2f${rest.slice(1).replaceAll("/", "%2f")}`,
    `/internal/${first}%2F${others.join("/")}`,
    `${path}/`,
    `${path}?`,
    `${path};x`,
    `${path}#x`,
    `/internal/${first}/${others.map((p) => `%${p.charCodeAt(0).toString(16)}${p.slice(1)}`).join("/")}`,
    `http://localhost${path}`,
    `http://localhost/%69nternal${rest}`,
  ];
}

describe("internal routes", () => {
  const victim = { id: "0", username: "victim_bot", first_name: "Victim" };
  const probes = () => [
    { method: "GET", path: "/internal/platform/bots", body: undefined },
    {
      method: "POST",
      path: "/internal/call/getMyStarBalance",
      body: JSON.stringify({ bot: victim, params: {} }),
    },
  ];
  const listeners = (): Listener[] => [
    ...local.stack.processes.map((p) => ({ name: `${p.name} tcp`, port: p.port })),
    { name: "updates socket", socketPath: join(dir, "updates.sock") },
    { name: "invoices socket", socketPath: join(dir, "invoices.sock") },
  ];

  it("answer nothing without the internal token, however the path is spelled, on every port and socket", async () => {
    const bot = await local.platform.createBot();
    victim.id = String(bot.id);
    const leaks: string[] = [];
    for (const to of listeners()) {
      for (const probe of probes()) {
        for (const target of [probe.path, ...spellings(probe.path)]) {
          const res = await raw(to, probe.method, target, {}, probe.body);
          const service = to.name.split(/[- ]/)[0];
          // Services refuse every request but health and metrics; the gateway and workers have no
          // internal routes at all.
          const refused = service === "invoices" || service === "updates" ? res.status === 401 : res.status >= 400;
          if (!refused || res.body.includes(bot.username))
            leaks.push(`${to.name} ${probe.method} ${target}: ${res.status}`);
        }
      }
    }
    expect(leaks).toEqual([]);
  });

  it("answer the gateway and workers' calls, which carry the token", async () => {
    const bot = await local.platform.createBot();
    victim.id = String(bot.id);
    const withToken = { [INTERNAL_TOKEN_HEADER]: INTERNAL_TOKEN };
    for (const to of listeners().filter((l) => /^(updates|invoices)/.test(l.name))) {
      const [list, balance] = probes();
      const service = to.name.split(/[- ]/)[0];
      const res =
        service === "updates"
          ? await raw(to, list!.method, list!.path, withToken)
          : await raw(to, balance!.method, balance!.path, withToken, balance!.body);
      expect({ to: to.name, status: res.status }).toEqual({ to: to.name, status: 200 });
    }
    // Health and metrics stay open for probes and scrapers.
    const updates = local.stack.processes.find((p) => p.service === "updates")!;
    expect((await raw({ name: "updates", port: updates.port }, "GET", "/readyz")).status).toBe(200);
  });
});

describe("a webhook aimed at starpost itself", () => {
  const portOf = (service: string) => local.stack.processes.find((p) => p.service === service)!.port;

  it("is refused by setWebhook, for every service, Redis, and every spelling of the host", async () => {
    const victim = await local.platform.createBot();
    const targets = [
      `http://127.0.0.1:${portOf("updates")}/%69nternal/platform/bots/${victim.id}/token`,
      `http://localhost:${portOf("invoices")}/internal/call/getMyStarBalance`,
      `http://[::ffff:127.0.0.1]:${portOf("gateway")}/platform/v1/bots`,
      `http://127.0.0.2:${portOf("webhook-worker")}/metrics`,
      `http://0.0.0.0:${local.redis.port}/`,
    ];
    for (const url of targets) {
      // setWebhook takes one URL a second per bot: a bot per attempt.
      const attacker = await local.platform.createBot();
      const res = await botClient(local.gatewayUrl, attacker.token)("setWebhook", { url });
      const port = Number(new URL(url).port);
      expect({ url, body: res.body }).toEqual({
        url,
        body: {
          ok: false,
          error_code: 400,
          description: expect.stringMatching(
            new RegExp(`^Bad Request: bad webhook: IP address [0-9a-f.:]+ port ${port} is starpost's own$`),
          ),
        },
      });
    }
    expect((await botClient(local.gatewayUrl, victim.token)("getMe")).body.ok).toBe(true);
  });

  it("is never delivered to: the token-rotation chain fails and says why", async () => {
    const victim = await local.platform.createBot();
    const attacker = await local.platform.createBot();
    // A webhook stored as setWebhook would store it had its name resolved elsewhere then (DNS
    // rebinding), or before starpost refused such URLs: the worker's own check is what stops it.
    const url = `http://127.0.0.1:${portOf("updates")}/%69nternal/platform/bots/${victim.id}/token`;
    const config = {
      url,
      secretToken: "",
      maxConnections: 40,
      ipAddress: "",
      hasCertificate: false,
      resolvedIp: "127.0.0.1",
      generation: `${Date.now()}-attack`,
    };
    await redis.hset(keys.webhook(attacker.id), webhookFields(config));
    await redis.sadd(keys.webhookBotsOf(attacker.id), String(attacker.id));
    expect((await local.platform.pushUpdate(attacker.id, userMessage(1, "go"))).status).toBe(200);

    const info = async () => (await botClient(local.gatewayUrl, attacker.token)("getWebhookInfo")).body.result;
    await eventually(async () => (await info()).last_error_message !== undefined, 20_000, "a delivery attempt");
    expect(await info()).toMatchObject({
      url,
      pending_update_count: 1,
      last_error_message: `IP address 127.0.0.1 port ${portOf("updates")} is starpost's own`,
    });
    expect((await botClient(local.gatewayUrl, victim.token)("getMe")).body).toMatchObject({ ok: true });
  });
});
