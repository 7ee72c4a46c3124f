/**
 * The same work on starpost and on a peer, telegram-test-api: N user messages pushed through each
 * one's user-side API (16 at a time), then drained by the bot through getUpdates. starpost keeps
 * every update durably in Redis (append-only file, fsync always; BENCH_AOF=no turns the file off to
 * show what durability costs); the peer keeps them in memory.
 */
import { request } from "undici";
import { freePort, stopProcess } from "@starpost/testkit";
import { withFloorRedis } from "./lib/ceiling.ts";
import { inParallel } from "./lib/pool.ts";
import { cpuMs, startScript } from "./lib/processes.ts";
import { report, type Figure } from "./lib/report.ts";
import { durability, PLATFORM_TOKEN, startBenchStack } from "./lib/stack.ts";

const N = Number(process.env.BENCH_PEER_MESSAGES ?? 5000);
const CONCURRENCY = 16;

async function post(url: string, body: unknown, headers: Record<string, string> = {}) {
  const res = await request(url, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify(body),
  });
  const json = (await res.body.json()) as { ok: boolean };
  if (res.statusCode !== 200 || !json.ok) throw new Error(`${url}: ${res.statusCode} ${JSON.stringify(json)}`);
  return json;
}

const pushAll = (push: (i: number) => Promise<unknown>) => inParallel(N, CONCURRENCY, push);

const message = (i: number) => ({
  message_id: i + 1,
  from: { id: 1000 + (i % 50), is_bot: false, first_name: "Ann" },
  chat: { id: 1000 + (i % 50), type: "private", first_name: "Ann" },
  date: Math.floor(Date.now() / 1000),
  text: `message ${i}`,
});

interface Run {
  ms: number;
  /** CPU time of the server side's processes over the run, ms. */
  cpu: Record<string, number>;
}

/** CPU ms each named process used while `work` ran. */
async function timed(pids: Record<string, number>, work: () => Promise<void>): Promise<Run> {
  const before = Object.fromEntries(Object.entries(pids).map(([name, pid]) => [name, cpuMs(pid)]));
  const started = performance.now();
  await work();
  const ms = performance.now() - started;
  return { ms, cpu: Object.fromEntries(Object.entries(pids).map(([name, pid]) => [name, cpuMs(pid) - before[name]!])) };
}

const cpuNote = (r: Run) =>
  Object.entries(r.cpu)
    .map(([name, ms]) => `${name} ${Math.round(ms)}`)
    .join(", ");
const cpuTotal = (r: Run) => Object.values(r.cpu).reduce((a, b) => a + b, 0);

async function starpost(): Promise<Run> {
  const stack = await startBenchStack();
  try {
    const bot = await stack.platform.createBot();
    const pids = { gateway: stack.pid("gateway"), updates: stack.pid("updates"), redis: stack.redis.process.pid! };
    return await timed(pids, async () => {
      await pushAll((i) =>
        post(
          `${stack.gatewayUrl}/platform/v1/bots/${bot.id}/updates`,
          { message: message(i) },
          { authorization: `Bearer ${PLATFORM_TOKEN}` },
        ),
      );
      let got = 0;
      let offset = 0;
      while (got < N) {
        const res = await request(`${stack.gatewayUrl}/bot${bot.token}/getUpdates?offset=${offset}&limit=100`);
        const { result } = (await res.body.json()) as { result: { update_id: number }[] };
        got += result.length;
        if (result.length) offset = result[result.length - 1]!.update_id + 1;
      }
    });
  } finally {
    await stack.stop();
  }
}

async function peer(): Promise<Run> {
  const port = await freePort();
  const { child } = await startScript("./peer-server.ts", { PORT: String(port) });
  const base = `http://127.0.0.1:${port}`;
  const token = "1234:peer-bench-token";
  try {
    return await timed({ peer: child.pid! }, async () => {
      await pushAll((i) => post(`${base}/sendMessage`, { ...message(i), botToken: token }));
      let got = 0;
      while (got < N) {
        // The peer answers every unread update at once and marks them read.
        const res = await request(`${base}/bot${token}/getUpdates`);
        const { result } = (await res.body.json()) as { result: unknown[] };
        got += result.length;
      }
    });
  } finally {
    await stopProcess(child);
  }
}

/**
 * The same pushes (no drain) through the two-hop floor of bench/lib/two-hop.ts, bare or with one
 * Lua step per push on `redis`: the design's topology with nothing of starpost in it.
 */
async function floorPushes(redis?: { url: string; pid: number }): Promise<Run> {
  const service = await startScript("./two-hop.ts", { ROLE: "service", ...(redis ? { REDIS_URL: redis.url } : {}) });
  try {
    const gateway = await startScript("./two-hop.ts", { ROLE: "gateway", SERVICE_PORT: String(service.port) });
    try {
      const pids = { gateway: gateway.child.pid!, service: service.child.pid!, ...(redis ? { redis: redis.pid } : {}) };
      return await timed(pids, async () => {
        await pushAll((i) => post(`http://127.0.0.1:${gateway.port}/`, { message: message(i) }));
      });
    } finally {
      await stopProcess(gateway.child);
    }
  } finally {
    await stopProcess(service.child);
  }
}

const theirs = await peer();
const ours = await starpost();
const bareFloor = await floorPushes();
const durableFloor = await withFloorRedis((redis) => floorPushes(redis));
const floorFigure = (r: Run, what: string): Figure => ({
  bench: "peer",
  name: `${N} messages pushed (no drain), two-hop floor ${what}`,
  value: r.ms,
  unit: "ms",
  ceiling: { name: "peer ms", value: theirs.ms },
  ratio: theirs.ms / r.ms,
  note: `the topology with nothing of starpost in it, pushes only: twice the peer needs starpost's whole run under ${Math.round(theirs.ms / 2)} ms; CPU ms: ${cpuNote(r)}`,
});
const figures: Figure[] = [
  { bench: "peer", name: `${N} messages pushed + drained, telegram-test-api`, value: theirs.ms, unit: "ms" },
  {
    bench: "peer",
    name: `${N} messages pushed + drained, starpost (${durability()})`,
    value: ours.ms,
    unit: "ms",
    ceiling: { name: "peer ms", value: theirs.ms },
    ratio: theirs.ms / ours.ms,
    target: ">= 2",
    targetOn: "ratio",
    note: "ratio = peer time / starpost time (above 1: starpost faster)",
  },
  {
    bench: "peer",
    name: "server CPU per message, starpost (gateway + updates + redis)",
    value: (cpuTotal(ours) * 1000) / N,
    unit: "µs",
    ceiling: { name: "peer µs", value: (cpuTotal(theirs) * 1000) / N },
    ratio: cpuTotal(theirs) / cpuTotal(ours),
    note: `CPU ms over the run: ${cpuNote(ours)}; ${cpuNote(theirs)}`,
  },
  floorFigure(bareFloor, "(bare)"),
  floorFigure(durableFloor, `with one Lua step per push (${durability()})`),
];
report(figures);
