/**
 * Where a forwarded call's CPU time goes: the stack's processes run with `node --cpu-prof` under
 * the sendInvoice or empty getUpdates load of `npm run bench`, and each process's profile is
 * summed by self time per function (the top ones printed, the .cpuprofile files kept under
 * bench/results/profiles/ for Chrome DevTools or speedscope).
 *
 *   node --import tsx bench/profile.ts [send-invoice|get-updates]   (BENCH_SECONDS, default 8)
 */
import { mkdirSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { buildDist } from "../scripts/build.ts";
import { autocannon } from "./lib/load.ts";
import { startBenchStack } from "./lib/stack.ts";

const what = process.argv[2] ?? "send-invoice";
const dir = fileURLToPath(new URL(`./results/profiles/${what}/`, import.meta.url));
rmSync(dir, { recursive: true, force: true });
mkdirSync(dir, { recursive: true });

// The built bundles, as npm start and the image run them (and their functions keep their lines).
const dist = join(dir, "dist");
await buildDist(dist);
const bench = await startBenchStack({ nodeArgs: ["--cpu-prof", `--cpu-prof-dir=${dir}`], dist });
try {
  const bot = await bench.platform.createBot();
  await bench.platform.putChat(bot.id, { id: 1001, type: "private", first_name: "Ann" });
  const body = JSON.stringify({
    chat_id: 1001,
    title: "Gold",
    description: "A bag of gold",
    payload: "p",
    currency: "XTR",
    prices: [{ label: "Gold", amount: 100 }],
  });
  const r =
    what === "send-invoice"
      ? await autocannon({
          url: `${bench.gatewayUrl}/bot${bot.token}/sendInvoice`,
          method: "POST",
          body,
          connections: 64,
        })
      : await autocannon({ url: `${bench.gatewayUrl}/bot${bot.token}/getUpdates?timeout=0`, connections: 64 });
  process.stdout.write(`${what}: ${Math.round(r.rps)} req/s under the profiler\n`);
} finally {
  await bench.stop();
}

interface Node {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
for (const file of readdirSync(dir).filter((f) => f.endsWith(".cpuprofile"))) {
  const p = JSON.parse(readFileSync(join(dir, file), "utf8")) as {
    nodes: Node[];
    samples: number[];
    timeDeltas: number[];
  };
  const byId = new Map(p.nodes.map((n) => [n.id, n]));
  const self = new Map<string, number>();
  let total = 0;
  p.samples.forEach((id, i) => {
    const n = byId.get(id)!;
    const dt = p.timeDeltas[i] ?? 0;
    const f = n.callFrame;
    const name = `${f.functionName || "(anonymous)"} ${f.url.replace(/^.*\//, "")}:${f.lineNumber + 1}`;
    if (f.functionName === "(idle)") return;
    total += dt;
    self.set(name, (self.get(name) ?? 0) + dt);
  });
  const service = p.nodes.map((n) => /\/dist\/([\w-]+)\.mjs$/.exec(n.callFrame.url)?.[1]).find(Boolean) ?? "?";
  process.stdout.write(`\n${service} (${file}): ${(total / 1000).toFixed(0)} ms busy\n`);
  for (const [name, us] of [...self].sort((a, b) => b[1] - a[1]).slice(0, 25))
    process.stdout.write(`  ${((100 * us) / total).toFixed(1).padStart(5)}%  ${name}\n`);
}
