/**
 * `npm run bench`: every benchmark, one after another, each in its own process (which starts what
 * it needs), then one table and a JSON file (bench/results/latest.json) with each figure next to its
 * target and its ratio to a ceiling measured in the same run.
 */
import { spawn } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { cpus, totalmem } from "node:os";
import { fileURLToPath } from "node:url";
import { createInterface } from "node:readline";
import { meets, RESULT_MARK, table, type Figure } from "./lib/report.ts";

const BENCHES = ["ceilings", "send-invoice", "get-updates", "wake-latency", "idle-polls", "webhook-throughput", "scaling", "peer"];
const only = process.argv.slice(2);
const here = fileURLToPath(new URL("./", import.meta.url));

function runOne(name: string): Promise<Figure[]> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ["--import", "tsx", `${here}${name}.ts`], { stdio: ["ignore", "pipe", "inherit"] });
    let figures: Figure[] = [];
    createInterface({ input: child.stdout! }).on("line", (line) => {
      if (line.startsWith(RESULT_MARK)) figures = figures.concat(JSON.parse(line.slice(RESULT_MARK.length)));
      else process.stdout.write(`  ${name}: ${line}\n`);
    });
    child.on("exit", (code) => {
      if (code !== 0) figures.push({ bench: name, name: `failed (exit ${code})`, value: NaN, unit: "" });
      resolve(figures);
    });
  });
}

const all: Figure[] = [];
for (const name of BENCHES.filter((b) => only.length === 0 || only.includes(b))) {
  process.stdout.write(`\n== ${name}\n`);
  all.push(...(await runOne(name)));
}

const machine = `${cpus().length} cores (${cpus()[0]?.model ?? "?"}), ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.version}`;
const date = new Date().toISOString();
process.stdout.write(`\nstarpost benchmarks, ${date}, ${machine}\n\n${table(all)}\n`);
const missed = all.filter((f) => meets(f) === false);
if (missed.length) process.stdout.write(`\nmissed: ${missed.map((f) => `${f.bench}/${f.name}`).join("; ")}\n`);
mkdirSync(`${here}results`, { recursive: true });
writeFileSync(`${here}results/latest.json`, JSON.stringify({ date, machine, figures: all }, null, 2) + "\n");
process.stdout.write(`\nwritten: bench/results/latest.json\n`);
