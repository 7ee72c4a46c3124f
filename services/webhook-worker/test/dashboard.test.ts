import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { REPO_ROOT, startStack, type TestStack } from "@starpost/testkit";
import { startWorker } from "./worker-harness.ts";

/** Metric names a PromQL expression reads (functions, keywords and label names left out). */
function metricNames(expr: string): string[] {
  const withoutLabels = expr.replace(/\{[^}]*\}/g, "").replace(/\[[^\]]*\]/g, "").replace(/\b(by|without)\s*\([^)]*\)/g, "");
  return [...withoutLabels.matchAll(/\b([a-z_][a-z0-9_]*)\b(?!\s*\()/g)].map((m) => m[1]!).filter((n) => n.includes("_"));
}

/** Names every service declares on /metrics (# HELP lines), histograms with their series suffixes. */
function exported(text: string): string[] {
  return [...text.matchAll(/^# HELP (\S+)/gm)].flatMap(([, name]) => [name!, `${name}_bucket`, `${name}_sum`, `${name}_count`]);
}

describe("the Grafana dashboard (deploy/grafana/starpost.json)", () => {
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

  it("queries only metrics some service exports", async () => {
    const dashboard = JSON.parse(readFileSync(`${REPO_ROOT}deploy/grafana/starpost.json`, "utf8"));
    const queried = new Set<string>(dashboard.panels.flatMap((p: any) => p.targets.flatMap((t: any) => metricNames(t.expr))));
    expect(queried.size).toBeGreaterThan(15);

    const texts = await Promise.all([stack.gatewayUrl, stack.updatesUrl, stack.invoicesUrl].map(async (u) => (await fetch(`${u}/metrics`)).text()));
    const names = new Set([...texts, await worker.registry.render()].flatMap(exported));
    expect([...queried].filter((n) => !names.has(n))).toEqual([]);
  });

  it("every service's /metrics carries the process metrics and its service label", async () => {
    for (const [url, service] of [[stack.gatewayUrl, "gateway"], [stack.updatesUrl, "updates"], [stack.invoicesUrl, "invoices"]] as const) {
      const text = await (await fetch(`${url}/metrics`)).text();
      expect(text).toMatch(new RegExp(`^nodejs_eventloop_lag_p99_seconds\\{service="${service}"\\} \\d`, "m"));
      expect(text).toMatch(new RegExp(`^nodejs_heap_size_used_bytes\\{service="${service}"\\} \\d`, "m"));
    }
  });
});
