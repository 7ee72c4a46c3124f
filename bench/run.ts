/**
 * `npm run bench`: every benchmark, one after another, each in its own process (which starts what
 * it needs), then one table and a JSON file (bench/results/latest.json) with each figure next to its
 * target and its ratio to a ceiling measured in the same run. A whole run (no names given) also
 * writes that table into docs/performance.md, as its "Latest run".
 *
 *   node --import tsx bench/run.ts [bench ...]     e.g. `node --import tsx bench/run.ts peer ceilings`
 */
import { spawn, type ChildProcess } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { cpus, loadavg, totalmem } from "node:os";
import { fileURLToPath } from "node:url";
import { createInterface } from "node:readline";
import { meets, RESULT_MARK, table, type Figure } from "./lib/report.ts";

const BENCHES = [
  "ceilings",
  "idle-stack",
  "send-invoice",
  "get-updates",
  "wake-latency",
  "idle-polls",
  "webhook-throughput",
  "webhook-latency",
  "hostile-receivers",
  "scaling",
  "scale-rest",
  "peer",
  "durability",
  "full-redis",
  "cluster",
  "token-timing",
  "slow-clients",
  "redis-timing",
  "bad-start",
];
/**
 * A bench that hangs must not hold the whole run: BENCH_TIMEOUT seconds each (default 300; at
 * least 900 for scale-rest, which waits out webhook retries on the real backoff).
 */
const TIMEOUT_S = Number(process.env.BENCH_TIMEOUT ?? 300);
const timeoutMs = (bench: string) => (bench === "scale-rest" ? Math.max(TIMEOUT_S, 900) : TIMEOUT_S) * 1000;
const here = fileURLToPath(new URL("./", import.meta.url));

const only = process.argv.slice(2);
const unknown = only.filter((b) => !BENCHES.includes(b));
if (unknown.length) {
  process.stderr.write(`unknown bench: ${unknown.join(", ")}; known: ${BENCHES.join(", ")}\n`);
  process.exit(2);
}

let current: ChildProcess | undefined;
/** Each bench leads its own process group, so the services, redis-server and autocannon it started go with it. */
const killCurrent = () => {
  if (!current?.pid) return;
  try {
    process.kill(-current.pid, "SIGKILL");
  } catch {
    // the group is already gone
  }
};
process.on("SIGINT", () => {
  killCurrent();
  process.exit(130);
});

function runOne(name: string): Promise<Figure[]> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ["--import", "tsx", `${here}${name}.ts`], {
      stdio: ["ignore", "pipe", "inherit"],
      detached: true,
    });
    current = child;
    let figures: Figure[] = [];
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      killCurrent();
    }, timeoutMs(name));
    createInterface({ input: child.stdout! }).on("line", (line) => {
      if (line.startsWith(RESULT_MARK)) figures = figures.concat(JSON.parse(line.slice(RESULT_MARK.length)));
      else process.stdout.write(`  ${name}: ${line}\n`);
    });
    // "close", not "exit": the marked result line may still be in the pipe when the process exits.
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      // Whatever the bench left behind (a service it could not stop) goes with its group.
      killCurrent();
      current = undefined;
      const why = timedOut ? `timed out after ${timeoutMs(name) / 1000} s` : code !== 0 ? `exit ${code ?? signal}` : "";
      if (why) figures.push({ bench: name, name: `failed (${why})`, value: NaN, unit: "" });
      resolve(figures);
    });
  });
}

const load = () =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(", ");
const loadBefore = load();
const started = Date.now();
const all: Figure[] = [];
for (const name of BENCHES.filter((b) => only.length === 0 || only.includes(b))) {
  process.stdout.write(`\n== ${name}\n`);
  all.push(...(await runOne(name)));
}
const loadAfter = load();
const minutes = (Date.now() - started) / 60_000;

const machine = `${cpus().length} cores (${cpus()[0]?.model ?? "?"}), ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.version}`;
const date = new Date().toISOString();
process.stdout.write(`\nstarpost benchmarks, ${date}, ${machine}\n`);
process.stdout.write(
  `load average (1, 5, 15 min) before: ${loadBefore}; after: ${loadAfter}; ${minutes.toFixed(1)} min\n\n${table(all)}\n`,
);
const missed = all.filter((f) => meets(f) === false);
if (missed.length) process.stdout.write(`\nmissed: ${missed.map((f) => `${f.bench}/${f.name}`).join("; ")}\n`);
const notes = all.filter((f) => f.note);
if (notes.length)
  process.stdout.write(`\nnotes:\n${notes.map((f) => `- ${f.bench}/${f.name}: ${f.note}`).join("\n")}\n`);
mkdirSync(`${here}results`, { recursive: true });
writeFileSync(
  `${here}results/latest.json`,
  JSON.stringify({ date, machine, load: { before: loadBefore, after: loadAfter }, minutes, figures: all }, null, 2) +
    "\n",
);
process.stdout.write(`\nwritten: bench/results/latest.json\n`);

// A whole run is the one docs/performance.md shows; a partial run leaves it as it is.
if (only.length === 0) {
  const doc = `${here}../docs/performance.md`;
  const [start, end] = ["<!-- latest-run:", "<!-- /latest-run -->"];
  const text = readFileSync(doc, "utf8");
  const from = text.indexOf("\n", text.indexOf(start)) + 1;
  const to = text.indexOf(end);
  const run = [
    `${date.slice(0, 16).replace("T", " ")} UTC, ${machine}, \`npm run bench\`; load average (1, 5, 15 min)`,
    `before ${loadBefore}, after ${loadAfter}; ${minutes.toFixed(1)} min.`,
    "",
    table(all),
  ].join("\n");
  writeFileSync(doc, `${text.slice(0, from)}\n${run}\n\n${text.slice(to)}`);
  process.stdout.write(`written: docs/performance.md (Latest run)\n`);
}
