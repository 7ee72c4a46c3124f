import { Agent, request } from "undici";
import { keys } from "@starpost/shared";
import { type Redis } from "@starpost/runtime";
import { userMessage } from "@starpost/testkit";
import { PLATFORM_TOKEN } from "./stack.ts";

/**
 * Wake latency, `n` times one after the other: from a platform ingest call (a user's message pushed
 * through the gateway) to the bot's waiting getUpdates answering. Each push goes only once the poll
 * waits (its own claim is in Redis), so what is measured is the wake-up, not a ready read. The first
 * `warmup` events (BENCH_WAKE_WARMUP, default 2,000) warm the processes up and are not returned:
 * until V8 has compiled the hot paths, a cold stack's pushes take twice as long at p99. `pushes`: how long each ingest call took
 * to be answered, in the same events.
 */
export async function measureWakes(
  gatewayUrl: string,
  redis: Redis,
  bot: { id: number; token: string },
  n: number,
  warmup = Number(process.env.BENCH_WAKE_WARMUP ?? 2000),
): Promise<{ wakes: number[]; pushes: number[] }> {
  const agent = new Agent({ keepAliveTimeout: 60_000 });
  const ingestUrl = `${gatewayUrl}/platform/v1/bots/${bot.id}/updates`;
  const headers = { authorization: `Bearer ${PLATFORM_TOKEN}`, "content-type": "application/json" };
  const latencies: number[] = [];
  const pushes: number[] = [];
  let offset = 0;
  // An answered poll's claim stays until the next poll's claim replaces it.
  let previous: string | null = null;
  try {
    for (let i = 0; i < n + warmup; i++) {
      const poll = request(`${gatewayUrl}/bot${bot.token}/getUpdates?timeout=30&offset=${offset}`, {
        dispatcher: agent,
      }).then(async (res) => ((await res.body.json()) as { result: { update_id: number }[] }).result);
      let owner: string | null;
      while ((owner = await redis.get(keys.pollOwner(bot.id))) === null || owner === previous)
        await new Promise((r) => setImmediate(r));
      previous = owner;
      const body = JSON.stringify(userMessage(7, `m${i}`));
      const started = performance.now();
      const ingest = request(ingestUrl, { method: "POST", headers, body, dispatcher: agent })
        .then((r) => r.body.dump())
        .then(() => performance.now() - started);
      const result = await poll;
      const elapsed = performance.now() - started;
      const pushed = await ingest;
      if (result.length !== 1) throw new Error(`expected one update, got ${result.length}`);
      offset = result[0]!.update_id + 1;
      if (i >= warmup) {
        latencies.push(elapsed);
        pushes.push(pushed);
      }
    }
  } finally {
    await agent.close();
  }
  return { wakes: latencies, pushes };
}

/**
 * A platform push alone, `n` times one after the other with nothing waiting (a warm stack: run
 * after measureWakes): how long each ingest call took to be answered, in ms. Every 100 pushes a
 * getUpdates confirms them, so the log stays short.
 */
export async function measurePushes(
  gatewayUrl: string,
  bot: { id: number; token: string },
  n: number,
): Promise<number[]> {
  const agent = new Agent({ keepAliveTimeout: 60_000 });
  const ingestUrl = `${gatewayUrl}/platform/v1/bots/${bot.id}/updates`;
  const headers = { authorization: `Bearer ${PLATFORM_TOKEN}`, "content-type": "application/json" };
  const out: number[] = [];
  try {
    for (let i = 0; i < n; i++) {
      const body = JSON.stringify(userMessage(7, `p${i}`));
      const started = performance.now();
      await request(ingestUrl, { method: "POST", headers, body, dispatcher: agent }).then((r) => r.body.dump());
      out.push(performance.now() - started);
      if (i % 100 === 99)
        await request(`${gatewayUrl}/bot${bot.token}/getUpdates?offset=-1`, { dispatcher: agent }).then((r) =>
          r.body.dump(),
        );
    }
  } finally {
    await agent.close();
  }
  return out;
}
