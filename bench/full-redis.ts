/**
 * A full Redis (maxmemory with noeviction, as `npm start` and compose run it): platform pushes
 * of 20 KB updates, 64 at once, to polling bots and to a webhook bot whose receiver is down (its
 * updates stay in the log), on a Redis given 8 MB above what it holds, until it has refused 300.
 * Prints how many pushes were answered a refusal yet appended anyway (target 0), how many were
 * answered ok yet missing (target 0), and how the refusals were answered.
 *
 *   node --import tsx bench/run.ts full-redis
 */
import { Redis } from "ioredis";
import { freePort } from "@starpost/testkit";
import { keys } from "@starpost/shared";
import { report } from "./lib/report.ts";
import { PLATFORM_TOKEN, startBenchStack } from "./lib/stack.ts";

const IN_FLIGHT = 64;
const REFUSALS = 300;
const chat = { id: 5, type: "private", first_name: "Ann" };
const filler = "x".repeat(20_000);

const bench = await startBenchStack({ workers: 1 });
const redis = new Redis(bench.redis.url);
try {
  const bots = [await bench.platform.createBot(), await bench.platform.createBot(), await bench.platform.createBot()];
  const hook = bots[2]!;
  const set = await fetch(`${bench.gatewayUrl}/bot${hook.token}/setWebhook`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ url: `http://127.0.0.1:${await freePort()}/down` }),
  });
  if (!set.ok) throw new Error(`setWebhook: ${await set.text()}`);

  const used = Number(/used_memory:(\d+)/.exec(await redis.info("memory"))![1]);
  await redis.config("SET", "maxmemory", String(used + 8_000_000));

  const answers = new Map<string, { bot: number; status: number }>();
  const replies = new Map<string, number>();
  let refused = 0;
  let n = 0;
  const push = async (): Promise<void> => {
    while (refused < REFUSALS && n < 100_000) {
      const marker = `push-${n++}-`;
      const bot = bots[n % bots.length]!;
      const res = await fetch(`${bench.gatewayUrl}/platform/v1/bots/${bot.id}/updates`, {
        method: "POST",
        headers: { authorization: `Bearer ${PLATFORM_TOKEN}`, "content-type": "application/json" },
        body: JSON.stringify({ message: { message_id: 1, date: 1, chat, text: marker + filler } }),
      });
      const body = (await res.json()) as { description?: string; parameters?: { retry_after?: number } };
      answers.set(marker, { bot: bot.id, status: res.status });
      const key = `${res.status} ${body.description ?? "ok"}${body.parameters?.retry_after ? ` (retry_after ${body.parameters.retry_after})` : ""}`;
      replies.set(key, (replies.get(key) ?? 0) + 1);
      if (res.status !== 200) refused++;
    }
  };
  await Promise.all(Array.from({ length: IN_FLIGHT }, push));

  const logged = new Set<string>();
  for (const bot of bots) {
    for (const [, fields] of await redis.xrange(keys.updateLog(String(bot.id)), "-", "+")) {
      for (const f of fields) for (const m of f.matchAll(/push-\d+-/g)) logged.add(m[0]);
    }
  }
  let refusedApplied = 0;
  let okMissing = 0;
  for (const [marker, { status }] of answers) {
    if (status !== 200 && logged.has(marker)) refusedApplied++;
    if (status === 200 && !logged.has(marker)) okMissing++;
  }
  process.stdout.write(`answers: ${JSON.stringify(Object.fromEntries(replies))}\n`);
  const ok = [...answers.values()].filter((a) => a.status === 200).length;
  report([
    {
      bench: "full-redis",
      name: "refused-but-applied pushes at maxmemory",
      value: refusedApplied,
      unit: "pushes",
      target: "<= 0",
      note: `${answers.size} pushes: ${ok} ok, ${refused} refused`,
    },
    {
      bench: "full-redis",
      name: "acknowledged pushes missing from the log",
      value: okMissing,
      unit: "pushes",
      target: "<= 0",
    },
    {
      bench: "full-redis",
      name: "refusals answered 503 storage full with retry_after",
      value: [...replies]
        .filter(([k]) => k.startsWith("503 Service Unavailable: storage is full"))
        .reduce((s, [, v]) => s + v, 0),
      unit: "answers",
      target: `>= ${refused}`,
    },
  ]);
} finally {
  await redis.config("SET", "maxmemory", "0").catch(() => undefined);
  redis.disconnect();
  await bench.stop();
}
