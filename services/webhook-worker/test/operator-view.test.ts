import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  botClient,
  eventually,
  metricIn,
  REPO_ROOT,
  startReceiver,
  startStack,
  userMessage,
  type TestStack,
} from "@starpost/testkit";
import { startWorker } from "./worker-harness.ts";

/** Metric names a PromQL expression reads (functions, keywords and label names left out). */
function metricNames(expr: string): string[] {
  const withoutLabels = expr
    .replace(/\{[^}]*\}/g, "")
    .replace(/\[[^\]]*\]/g, "")
    .replace(/\b(by|without)\s*\([^)]*\)/g, "");
  return [...withoutLabels.matchAll(/\b([a-z_][a-z0-9_]*)\b(?!\s*\()/g)]
    .map((m) => m[1]!)
    .filter((n) => n.includes("_"));
}

/** Names every service declares on /metrics (# HELP lines), histograms with their series suffixes. */
function exported(text: string): string[] {
  return [...text.matchAll(/^# HELP (\S+)/gm)].flatMap(([, name]) => [
    name!,
    `${name}_bucket`,
    `${name}_sum`,
    `${name}_count`,
  ]);
}

describe("what operators see: the Grafana dashboard's metrics and the platform's webhook view", () => {
  let stack: TestStack;
  let worker: ReturnType<typeof startWorker>;
  beforeAll(async () => {
    stack = await startStack();
    worker = startWorker(stack);
  });
  afterAll(async () => {
    await worker?.close();
    await stack?.close();
  });

  it("deploy/grafana/starpost.json queries only metrics some service exports", async () => {
    const dashboard = JSON.parse(readFileSync(`${REPO_ROOT}deploy/grafana/starpost.json`, "utf8"));
    const queried = new Set<string>(
      dashboard.panels.flatMap((p: any) => p.targets.flatMap((t: any) => metricNames(t.expr))),
    );
    expect(queried.size).toBeGreaterThan(15);

    const texts = await Promise.all(
      [stack.gatewayUrl, stack.updatesUrl, stack.invoicesUrl].map(async (u) => (await fetch(`${u}/metrics`)).text()),
    );
    const names = new Set([...texts, await worker.registry.render()].flatMap(exported));
    expect([...queried].filter((n) => !names.has(n))).toEqual([]);
  });

  it("a failing webhook: the platform's webhook view has the error and the next retry; failures are counted by error text, retry delays observed", async () => {
    const receiver = await startReceiver({ answer: () => ({ status: 500 }) });
    try {
      const bot = await stack.platform.createBot();
      expect((await botClient(stack.gatewayUrl, bot.token)("setWebhook", { url: receiver.url })).status).toBe(200);
      await stack.platform.pushUpdate(bot.id, userMessage(42, "hello"));
      const error = "Wrong response from the webhook: 500 Internal Server Error";
      let view: any;
      await eventually(
        async () => {
          view = (await stack.platform.call("GET", `/bots/${bot.id}/webhook`)).body.result;
          return view.next_retry_date !== undefined;
        },
        15_000,
        "a next retry in the webhook view",
      );
      expect(view).toMatchObject({ url: receiver.url, pending_update_count: 1, last_error_message: error });
      expect(view.next_retry_date).toBeGreaterThanOrEqual(view.last_error_date);
      const text = await worker.registry.render();
      expect(metricIn(text, "starpost_webhook_failures_total", `error="${error}"`)).toBeGreaterThan(0);
      expect(metricIn(text, "starpost_webhook_retry_delay_seconds_count")).toBeGreaterThan(0);

      receiver.answer = () => ({ status: 200 });
      await eventually(
        async () =>
          (await stack.platform.call("GET", `/bots/${bot.id}/webhook`)).body.result.pending_update_count === 0,
        15_000,
        "the update delivered",
      );
      expect((await stack.platform.call("GET", `/bots/${bot.id}/webhook`)).body.result.next_retry_date).toBeUndefined();
    } finally {
      await receiver.close();
    }
  });

  it("counts Bot API calls by method and status (unknown names as one label) and how long getUpdates waited", async () => {
    const bot = await stack.platform.createBot();
    const call = botClient(stack.gatewayUrl, bot.token);
    await call("getMe");
    await call("noSuchMethod");
    expect((await call("getUpdates", { timeout: 1 })).body.result).toEqual([]);
    const gateway = await (await fetch(`${stack.gatewayUrl}/metrics`)).text();
    expect(metricIn(gateway, "starpost_bot_api_calls_total", 'method="getMe",status="200"')).toBeGreaterThan(0);
    expect(metricIn(gateway, "starpost_bot_api_calls_total", 'method="unknown",status="404"')).toBeGreaterThan(0);
    expect(gateway).not.toContain("noSuchMethod");
    expect(metricIn(gateway, "starpost_poll_wait_seconds_count", 'end="timeout"')).toBeGreaterThan(0);
    expect(metricIn(gateway, "starpost_poll_wait_seconds_sum", 'end="timeout"')).toBeGreaterThanOrEqual(0.9);
  });

  it("every service's /metrics carries the process metrics and its service label", async () => {
    for (const [url, service] of [
      [stack.gatewayUrl, "gateway"],
      [stack.updatesUrl, "updates"],
      [stack.invoicesUrl, "invoices"],
    ] as const) {
      const text = await (await fetch(`${url}/metrics`)).text();
      expect(text).toMatch(new RegExp(`^nodejs_eventloop_lag_p99_seconds\\{service="${service}"\\} \\d`, "m"));
      expect(text).toMatch(new RegExp(`^nodejs_heap_size_used_bytes\\{service="${service}"\\} \\d`, "m"));
    }
  });
});
