/**
 * One figure of a benchmark: its value, the target it is held to, and its ratio to a ceiling
 * measured in the same run (these machines are shared and noisy: absolute numbers move, ratios hold).
 */
export interface Figure {
  bench: string;
  name: string;
  value: number;
  unit: string;
  /** e.g. ">= 5000" or "<= 10"; applied to `ratio` when `targetOn` is "ratio". */
  target?: string;
  targetOn?: "value" | "ratio";
  ceiling?: { name: string; value: number };
  ratio?: number;
  note?: string;
}

export const RESULT_MARK = "##starpost-bench## ";

export function meets(f: Figure): boolean | undefined {
  if (!f.target) return undefined;
  const [op, num] = f.target.split(" ");
  const subject = f.targetOn === "ratio" ? f.ratio : f.value;
  if (subject === undefined) return undefined;
  return op === ">=" ? subject >= Number(num) : subject <= Number(num);
}

const fmt = (n: number | undefined) =>
  n === undefined ? "" : Math.abs(n) >= 100 ? Math.round(n).toLocaleString("en-US") : n.toFixed(n < 1 ? 3 : 2);

export function table(figures: Figure[]): string {
  const rows = figures.map((f) => {
    const ok = meets(f);
    return [
      f.bench,
      f.name,
      `${fmt(f.value)} ${f.unit}`,
      f.target ? `${f.targetOn === "ratio" ? "ratio " : ""}${f.target}` : "",
      f.ceiling ? `${f.ceiling.name} ${fmt(f.ceiling.value)}` : "",
      f.ratio === undefined ? "" : fmt(f.ratio),
      ok === undefined ? "" : ok ? "met" : "MISSED",
    ];
  });
  const head = ["bench", "figure", "value", "target", "ceiling (same run)", "ratio", ""];
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (r: string[]) => "| " + r.map((c, i) => c.padEnd(widths[i]!)).join(" | ") + " |";
  return [line(head), line(widths.map((w) => "-".repeat(w))), ...rows.map(line)].join("\n");
}

/** Prints the figures as a table and as one marked JSON line the runner collects. */
export function report(figures: Figure[]): void {
  process.stdout.write(table(figures) + "\n");
  process.stdout.write(RESULT_MARK + JSON.stringify(figures) + "\n");
}
