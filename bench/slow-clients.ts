/**
 * What hostile clients cost everyone else, on the `npm start` topology (every service its own
 * process):
 *
 * - Slow bodies: BENCH_SLOW_CONNECTIONS (default 2,000) connections each send a request's headers
 *   and then one byte of its body every BENCH_SLOW_BYTE_EVERY_S (30) seconds; the figure is how many
 *   are still open BENCH_SLOW_WAIT_S (125) seconds after their headers. They come from 8 loopback
 *   addresses, so the per-address connection bound does not cut them first and the figure
 *   measures the request timeout.
 * - Expensive calls: BENCH_HEAVY_CONNECTIONS (20) keep-alive connections send getMe with 100,000
 *   urlencoded parameters each (one bot's token), back to back, for BENCH_HEAVY_SECONDS (20);
 *   meanwhile 4 other bots call getMe one after another. The figure is their median, against
 *   their median with nothing else running (the ratio is the factor docs/request-front.md states).
 *
 *   node --import tsx bench/run.ts slow-clients
 */
import { spawn } from "node:child_process";
import { Agent, request } from "node:http";
import { connect, type Socket } from "node:net";
import { setTimeout as sleep } from "node:timers/promises";
import { report } from "./lib/report.ts";
import { startBenchStack } from "./lib/stack.ts";

const SLOW = Number(process.env.BENCH_SLOW_CONNECTIONS ?? 2_000);
const WAIT_S = Number(process.env.BENCH_SLOW_WAIT_S ?? 125);
const BYTE_EVERY_S = Number(process.env.BENCH_SLOW_BYTE_EVERY_S ?? 30);
const HEAVY = Number(process.env.BENCH_HEAVY_CONNECTIONS ?? 20);
const HEAVY_PARAMS = 100_000;
const HEAVY_SECONDS = Number(process.env.BENCH_HEAVY_SECONDS ?? 20);
const BASELINE_SECONDS = 5;
const OTHER_BOTS = 4;
const SOURCES = Array.from({ length: 8 }, (_, i) => `127.0.0.${10 + i}`);

/** N keep-alive connections POSTing getMe with 100,000 urlencoded parameters, back to back, for SECONDS; prints the answers' statuses. */
const FLOOD = `
import { spawn } from "node:child_process";
import { Agent, request } from "node:http";
const url = new URL(process.env.URL);
const body = Buffer.from(Array.from({ length: ${HEAVY_PARAMS} }, (_, i) => i.toString(36) + "=").join("&"));
const agent = new Agent({ keepAlive: true, maxSockets: Number(process.env.N) });
const until = Date.now() + Number(process.env.SECONDS) * 1000;
const statuses = {};
const one = () => new Promise((resolve, reject) => {
  request({ host: url.hostname, port: url.port, path: "/bot" + process.env.TOKEN + "/getMe", method: "POST", agent,
    headers: { "content-type": "application/x-www-form-urlencoded", "content-length": body.length } }, (res) => {
    statuses[res.statusCode] = (statuses[res.statusCode] ?? 0) + 1;
    res.resume().once("end", resolve);
  }).once("error", reject).end(body);
});
await Promise.all(Array.from({ length: Number(process.env.N) }, async () => { while (Date.now() < until) await one(); }));
agent.destroy();
process.stdout.write(Object.entries(statuses).map(([s, n]) => n + " × " + s).join(", "));
`;

const quantile = (xs: number[], q: number) => [...xs].sort((a, b) => a - b)[Math.floor(q * (xs.length - 1))] ?? NaN;

interface Call {
  status: number;
  ms: number;
}

function call(url: URL, agent: Agent, path: string): Promise<Call> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    request({ host: url.hostname, port: url.port, path, agent }, (res) => {
      res.resume().once("end", () => resolve({ status: res.statusCode ?? 0, ms: performance.now() - started }));
    })
      .once("error", reject)
      .end();
  });
}

/** getMe of each bot, one after another, until `until`; the latencies in ms. */
async function getMes(url: URL, tokens: string[], until: number): Promise<number[]> {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const out: number[] = [];
  await Promise.all(
    tokens.map(async (token) => {
      while (performance.now() < until) {
        const c = await call(url, agent, `/bot${token}/getMe`);
        if (c.status !== 200) throw new Error(`getMe answered ${c.status}`);
        out.push(c.ms);
      }
    }),
  );
  agent.destroy();
  return out;
}

// The gateway's defaults, the per-address bound included.
const bench = await startBenchStack();
const url = new URL(bench.gatewayUrl);
let figures;
try {
  const heavyBot = await bench.platform.createBot();
  const others = await Promise.all(Array.from({ length: OTHER_BOTS }, () => bench.platform.createBot()));
  const tokens = others.map((b) => b.token);

  // --- expensive calls ---
  await getMes(url, tokens, performance.now() + 1_000); // warm-up
  const baseline = await getMes(url, tokens, performance.now() + BASELINE_SECONDS * 1000);
  // The flood runs in a process of its own, so its sending does not delay this one's getMe timings.
  const flood = spawn(process.execPath, ["--input-type=module", "-e", FLOOD], {
    env: {
      ...process.env,
      URL: bench.gatewayUrl,
      TOKEN: heavyBot.token,
      N: String(HEAVY),
      SECONDS: String(HEAVY_SECONDS),
    },
    stdio: ["ignore", "pipe", "inherit"],
  });
  let answered = "";
  flood.stdout!.on("data", (d) => (answered += d));
  const floodEnded = new Promise((resolve) => flood.once("close", resolve));
  await sleep(1_000); // the flood is under way
  const loaded = await getMes(url, tokens, performance.now() + (HEAVY_SECONDS - 2) * 1000);
  await floodEnded;
  const base50 = quantile(baseline, 0.5);
  const loaded50 = quantile(loaded, 0.5);

  // --- slow bodies ---
  const sockets: { socket: Socket; open: boolean; cut408: boolean }[] = [];
  for (let i = 0; i < SLOW; i += 100) {
    await Promise.all(
      Array.from({ length: Math.min(100, SLOW - i) }, (_, j) => {
        const socket = connect({ host: url.hostname, port: Number(url.port), localAddress: SOURCES[(i + j) % 8] });
        const s = { socket, open: true, cut408: false };
        sockets.push(s);
        socket.on("data", (d) => (s.cut408 ||= d.toString("latin1").startsWith("HTTP/1.1 408")));
        socket.on("error", () => undefined);
        socket.on("close", () => (s.open = false));
        return new Promise<void>((resolve) => socket.once("connect", resolve).once("close", () => resolve())).then(
          () => {
            if (!s.open) return;
            socket.write(
              `POST /bot${heavyBot.token}/getMe HTTP/1.1\r\nHost: gateway\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 1000\r\n\r\n`,
            );
          },
        );
      }),
    );
  }
  const headersDone = performance.now();
  const trickle = setInterval(() => {
    for (const s of sockets) if (s.open && s.socket.writable) s.socket.write("a");
  }, BYTE_EVERY_S * 1000);
  if (SLOW > 0) await sleep(WAIT_S * 1000);
  clearInterval(trickle);
  const stillOpen = sockets.filter((s) => s.open).length;
  const cut = sockets.filter((s) => s.cut408).length;
  const waited = Math.round((performance.now() - headersDone) / 1000);
  for (const s of sockets) s.socket.destroy();

  figures = [
    {
      bench: "slow-clients",
      name: `slow-body connections still open ${WAIT_S} s after their headers (of ${SLOW})`,
      value: stillOpen,
      unit: "conns",
      target: `<= ${Math.floor(SLOW / 10)}`,
      note: `${cut} answered 408 and closed; ${waited} s after the last headers; a byte every ${BYTE_EVERY_S} s`,
    },
    {
      bench: "slow-clients",
      name: `other bots' getMe p50 while ${HEAVY} connections send ${HEAVY_PARAMS / 1000}k-param requests`,
      value: loaded50,
      unit: "ms",
      target: "<= 50",
      ceiling: { name: "getMe p50 unloaded, ms", value: base50 },
      ratio: loaded50 / base50,
      note: `p99 ${quantile(loaded, 0.99).toFixed(1)} ms over ${loaded.length} calls; the heavy calls: ${answered}`,
    },
  ];
} finally {
  await bench.stop();
}
report(figures);
