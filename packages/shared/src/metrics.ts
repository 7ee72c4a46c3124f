/**
 * A small Prometheus text-format registry: counters, gauges (optionally computed at scrape time)
 * and histograms, with labels. One registry per process, rendered at /metrics.
 */

type Labels = Record<string, string | number>;
const labelKey = (labels: Labels) =>
  Object.keys(labels)
    .sort()
    .map((k) => `${k}="${String(labels[k]).replace(/["\\\n]/g, "_")}"`)
    .join(",");

interface Metric {
  render(): Promise<string[]>;
}

export class Registry {
  private readonly metrics: Metric[] = [];

  counter(name: string, help: string) {
    const values = new Map<string, number>();
    const m = {
      inc(labels: Labels = {}, by = 1) {
        const k = labelKey(labels);
        values.set(k, (values.get(k) ?? 0) + by);
      },
      get(labels: Labels = {}) {
        return values.get(labelKey(labels)) ?? 0;
      },
      render: async () => [`# HELP ${name} ${help}`, `# TYPE ${name} counter`, ...sample(name, values)],
    };
    this.metrics.push(m);
    return m;
  }

  gauge(name: string, help: string, collect?: () => number | Map<string, number> | Promise<number | Map<string, number>>) {
    const values = new Map<string, number>();
    const m = {
      set(value: number, labels: Labels = {}) {
        values.set(labelKey(labels), value);
      },
      render: async () => {
        if (collect) {
          const v = await collect();
          if (v instanceof Map) for (const [k, n] of v) values.set(k, n);
          else values.set("", v);
        }
        return [`# HELP ${name} ${help}`, `# TYPE ${name} gauge`, ...sample(name, values)];
      },
    };
    this.metrics.push(m);
    return m;
  }

  histogram(name: string, help: string, buckets = [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 60]) {
    const series = new Map<string, { counts: number[]; sum: number; count: number }>();
    const m = {
      observe(seconds: number, labels: Labels = {}) {
        const k = labelKey(labels);
        let s = series.get(k);
        if (!s) series.set(k, (s = { counts: buckets.map(() => 0), sum: 0, count: 0 }));
        for (let i = 0; i < buckets.length; i++) if (seconds <= buckets[i]!) s.counts[i]!++;
        s.sum += seconds;
        s.count++;
      },
      render: async () => {
        const lines = [`# HELP ${name} ${help}`, `# TYPE ${name} histogram`];
        for (const [k, s] of series) {
          const sep = k ? "," : "";
          buckets.forEach((b, i) => lines.push(`${name}_bucket{${k}${sep}le="${b}"} ${s.counts[i]}`));
          lines.push(`${name}_bucket{${k}${sep}le="+Inf"} ${s.count}`);
          lines.push(`${name}_sum${k ? `{${k}}` : ""} ${s.sum}`, `${name}_count${k ? `{${k}}` : ""} ${s.count}`);
        }
        return lines;
      },
    };
    this.metrics.push(m);
    return m;
  }

  async render(): Promise<string> {
    const parts = await Promise.all(this.metrics.map((m) => m.render()));
    return parts.flat().join("\n") + "\n";
  }
}

function sample(name: string, values: Map<string, number>): string[] {
  return [...values].map(([k, v]) => (k ? `${name}{${k}} ${v}` : `${name} ${v}`));
}
