/**
 * Where a forwarded call's CPU time goes: the stack's processes run with `node --cpu-prof` under
 * the sendInvoice or empty getUpdates load of `npm run bench`, or the platform pushes of the peer
 * bench (`ingest`: one message update per call), and each process's profile is summed by self
 * time per function and per bundled package or source folder (the top ones printed, the
 * .cpuprofile files kept under bench/results/profiles/ for Chrome DevTools or speedscope).
 *
 *   node --import tsx bench/profile.ts [send-invoice|get-updates|ingest]   (BENCH_SECONDS, default 8)
 */
import { mkdirSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { buildDist } from "../scripts/build.ts";
import { autocannon } from "./lib/load.ts";
import { PLATFORM_TOKEN, startBenchStack } from "./lib/stack.ts";

const SHAPES = ["send-invoice", "get-updates", "ingest"];
const what = process.argv[2] ?? "send-invoice";
if (!SHAPES.includes(what)) {
  process.stderr.write(`unknown shape: ${what}; known: ${SHAPES.join(", ")}\n`);
  process.exit(2);
}
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
  // The peer bench's push: a user's message, 16 at a time.
  const update = JSON.stringify({
    message: {
      message_id: 1,
      from: { id: 1001, is_bot: false, first_name: "Ann" },
      chat: { id: 1001, type: "private", first_name: "Ann" },
      date: Math.floor(Date.now() / 1000),
      text: "message 1",
    },
  });
  const r =
    what === "send-invoice"
      ? await autocannon({
          url: `${bench.gatewayUrl}/bot${bot.token}/sendInvoice`,
          method: "POST",
          body,
          connections: 64,
        })
      : what === "ingest"
        ? await autocannon({
            url: `${bench.gatewayUrl}/platform/v1/bots/${bot.id}/updates`,
            method: "POST",
            body: update,
            headers: { authorization: `Bearer ${PLATFORM_TOKEN}` },
            connections: 16,
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
/**
 * Where each line of a bundle comes from: esbuild starts every inlined module with a comment
 * naming its path, so a line is attributed to the package (or the workspace folder) it was in.
 */
const origins = new Map<string, { line: number; origin: string }[]>();
function originOf(url: string, line: number): string {
  const bundle = /\/([\w-]+\.mjs)$/.exec(url)?.[1];
  if (!bundle) return url.startsWith("node:") ? "node internals" : url === "" ? "(vm, gc, native)" : url;
  let marks = origins.get(bundle);
  if (!marks) {
    marks = [];
    readFileSync(join(dist, bundle), "utf8")
      .split("\n")
      .forEach((text, i) => {
        const m = /^\/\/ (\S+\.[cm]?[jt]s)$/.exec(text);
        if (!m) return;
        const path = m[1]!;
        const pkg = /node_modules\/(?:\.pnpm\/[^/]+\/node_modules\/)?((?:@[^/]+\/)?[^/]+)/.exec(path)?.[1];
        marks!.push({ line: i + 1, origin: pkg ?? path.replace(/\/[^/]+$/, "/") });
      });
    origins.set(bundle, marks);
  }
  let lo = 0;
  let hi = marks.length - 1;
  let found = "(bundle prologue)";
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (marks[mid]!.line <= line) {
      found = marks[mid]!.origin;
      lo = mid + 1;
    } else hi = mid - 1;
  }
  return found;
}

for (const file of readdirSync(dir).filter((f) => f.endsWith(".cpuprofile"))) {
  const p = JSON.parse(readFileSync(join(dir, file), "utf8")) as {
    nodes: Node[];
    samples: number[];
    timeDeltas: number[];
  };
  const byId = new Map(p.nodes.map((n) => [n.id, n]));
  const self = new Map<string, number>();
  const byOrigin = new Map<string, number>();
  let total = 0;
  p.samples.forEach((id, i) => {
    const n = byId.get(id)!;
    const dt = p.timeDeltas[i] ?? 0;
    const f = n.callFrame;
    const name = `${f.functionName || "(anonymous)"} ${f.url.replace(/^.*\//, "")}:${f.lineNumber + 1}`;
    if (f.functionName === "(idle)") return;
    total += dt;
    self.set(name, (self.get(name) ?? 0) + dt);
    const origin = originOf(f.url, f.lineNumber + 1);
    byOrigin.set(origin, (byOrigin.get(origin) ?? 0) + dt);
  });
  const service = p.nodes.map((n) => /\/dist\/([\w-]+)\.mjs$/.exec(n.callFrame.url)?.[1]).find(Boolean) ?? "?";
  process.stdout.write(`\n${service} (${file}): ${(total / 1000).toFixed(0)} ms busy\n`);
  for (const [name, us] of [...self].sort((a, b) => b[1] - a[1]).slice(0, 25))
    process.stdout.write(`  ${((100 * us) / total).toFixed(1).padStart(5)}%  ${name}\n`);
  process.stdout.write(`  by package or folder:\n`);
  for (const [origin, us] of [...byOrigin].sort((a, b) => b[1] - a[1]).slice(0, 15))
    process.stdout.write(`  ${((100 * us) / total).toFixed(1).padStart(5)}%  ${origin}\n`);
}
