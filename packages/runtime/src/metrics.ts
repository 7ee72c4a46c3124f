import * as prom from "prom-client";

/**
 * The metrics of one service process, rendered at /metrics: prom-client counters, gauges and
 * histograms on a registry of their own (never prom-client's global one: tests run several
 * services in one process), with prom-client's default process metrics (event-loop lag, heap,
 * GC, handles) and a `service` label on every series.
 */

type Labels = Record<string, string | number>;
type Collected = number | [Labels, number][];

/**
 * Dense where the benchmarks put calls' p50 and p99 (docs/performance.md), coarse up to the 50 s a
 * long poll may be held.
 */
export const LATENCY_BUCKETS = [
  0.0005, 0.001, 0.0025, 0.005, 0.0075, 0.01, 0.015, 0.02, 0.03, 0.05, 0.075, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60,
];

export class Registry {
  readonly prom = new prom.Registry();

  constructor(readonly service: string) {
    this.prom.setDefaultLabels({ service });
    prom.collectDefaultMetrics({ register: this.prom });
  }

  counter(name: string, help: string, labelNames: string[] = []) {
    return new prom.Counter({ name, help, labelNames, registers: [this.prom] });
  }

  /** A gauge; with `collect`, computed at scrape time (a number, or [labels, value] pairs). */
  gauge(name: string, help: string, collect?: () => Collected | Promise<Collected>, labelNames: string[] = []) {
    return new prom.Gauge({
      name,
      help,
      labelNames,
      registers: [this.prom],
      async collect() {
        if (!collect) return;
        const v = await collect();
        if (typeof v === "number") this.set(v);
        else for (const [labels, n] of v) this.set(labels, n);
      },
    });
  }

  histogram(name: string, help: string, labelNames: string[] = [], buckets = LATENCY_BUCKETS) {
    return new prom.Histogram({ name, help, labelNames, buckets, registers: [this.prom] });
  }

  get contentType(): string {
    return this.prom.contentType;
  }

  render(): Promise<string> {
    return this.prom.metrics();
  }
}
