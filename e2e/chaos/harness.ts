import { startLocalStack, startReceiver, Supervisor, type LocalStack, type Receiver } from "@starpost/testkit";

/** A seeded PRNG (mulberry32): the same seed gives the same kill schedule and the same choices. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

export interface Reply {
  status: number;
  body: any;
}

/** One HTTP call that never throws: undefined when the connection failed or timed out (a kill). */
export async function call(
  url: string,
  method: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<Reply | undefined> {
  try {
    const res = await fetch(url, {
      method,
      headers: body === undefined ? headers : { "content-type": "application/json", ...headers },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(30_000),
    });
    const text = await res.text();
    try {
      return { status: res.status, body: JSON.parse(text) };
    } catch {
      return { status: res.status, body: text };
    }
  } catch {
    return undefined;
  }
}

/** The stack under chaos: every compose service as a supervised process, Redis with AOF (fsync always), supervised too. */
export interface ChaosStack {
  local: LocalStack;
  supervisor: Supervisor;
  receiver: Receiver;
  /** supervisor lines (restarts, crash loops). */
  events: string[];
  bot(token: string, method: string, params?: Record<string, unknown>): Promise<Reply | undefined>;
  platform(method: string, path: string, body?: unknown): Promise<Reply | undefined>;
  /** every service process answers /readyz 200 (Redis reachable, downstream services up). */
  allReady(): Promise<boolean>;
  stop(): Promise<void>;
}

export async function startChaosStack(): Promise<ChaosStack> {
  const events: string[] = [];
  // A process that ran 1.5 s before dying was killed, not crash-looping; five quick deaths in a row are a loop.
  const supervisor = new Supervisor({
    log: (l) => events.push(`${new Date().toISOString()} ${l}`),
    baseDelayMs: 200,
    maxDelayMs: 3000,
    stableMs: 1500,
    maxTries: 5,
  });
  const local = await startLocalStack({
    appendonly: true,
    supervisor,
    env: { LOG_LEVEL: "warn" },
    extraEnv: {
      WORKER_LOCK_MS: "8000",
      WORKER_STALLED_INTERVAL_MS: "4000",
      WEBHOOK_RECONCILE_MS: "1000",
      WEBHOOK_BACKOFF_SCALE: "0.05",
    },
  });
  supervisor.watch("redis-server", local.redis.process, () => local.redis.respawn());
  const receiver = await startReceiver();
  const auth = { authorization: `Bearer ${local.platformToken}` };
  return {
    local,
    supervisor,
    receiver,
    events,
    bot: (token, method, params = {}) => call(`${local.gatewayUrl}/bot${token}/${method}`, "POST", params),
    platform: (method, path, body) => call(`${local.gatewayUrl}/platform/v1${path}`, method, body, auth),
    async allReady() {
      const answers = await Promise.all(
        local.stack.processes.map((p) => call(`http://127.0.0.1:${p.port}/readyz`, "GET")),
      );
      return answers.every((a) => a?.status === 200);
    },
    async stop() {
      supervisor.stop();
      await receiver.close();
      await local.stop();
    },
  };
}
