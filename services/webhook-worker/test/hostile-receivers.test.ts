import { createServer, type ServerResponse } from "node:http";
import type { Socket } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { botClient, freePort, metricIn, startStack, userMessage, type TestStack } from "@starpost/testkit";
import { keys } from "@starpost/shared";
import { eventually, startWorker } from "./worker-harness.ts";

/**
 * Receivers that answer 200 and then misbehave: trickle the body for ever, send an endless
 * chunked body. Each attempt is bounded as a whole, an answer is read only up to its cap, and
 * stalling receivers do not keep a healthy bot's updates waiting.
 */

let stack: TestStack;
const servers: { close(): Promise<void> }[] = [];

beforeAll(async () => {
  stack = await startStack();
});
afterAll(async () => {
  for (const s of servers) await s.close();
  await stack.close();
});

interface Got {
  update: any;
  at: number;
  /** the answer's end: finished (all of it written) or closed before that. */
  ended?: "finished" | "closed";
  /** bytes of the answer's body written. */
  written: number;
}

/** A webhook receiver on 127.0.0.1 whose answers `answer` writes itself. */
async function hostileReceiver(answer: (res: ServerResponse, got: Got, n: number) => void) {
  const got: Got[] = [];
  const sockets = new Set<Socket>();
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const g: Got = { update: JSON.parse(Buffer.concat(chunks).toString("utf8")), at: Date.now(), written: 0 };
      got.push(g);
      res.on("finish", () => (g.ended ??= "finished"));
      res.on("close", () => (g.ended ??= "closed"));
      answer(res, g, got.length);
    });
  });
  server.on("connection", (s) => {
    sockets.add(s);
    s.on("close", () => sockets.delete(s));
  });
  const port = await freePort();
  await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve));
  const receiver = {
    url: `http://127.0.0.1:${port}/hook`,
    got,
    close() {
      for (const s of sockets) s.destroy();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  servers.push(receiver);
  return receiver;
}

/** 200, then one byte every 100 ms until the connection goes: a per-chunk timeout never fires. */
function trickle(res: ServerResponse, g: Got) {
  res.writeHead(200, { "content-type": "application/json" });
  const t = setInterval(() => {
    res.write(" ");
    g.written++;
  }, 100);
  res.on("close", () => clearInterval(t));
}

async function newBot() {
  const bot = await stack.platform.createBot();
  return { ...bot, api: botClient(stack.gatewayUrl, bot.token) };
}

const info = async (bot: Awaited<ReturnType<typeof newBot>>) => (await bot.api("getWebhookInfo")).body.result;

describe("a receiver that answers 200 and trickles its body", () => {
  it("fails at the whole-attempt deadline with 'Read timeout expired' and is sent the update again", async () => {
    const worker = startWorker(stack, { sender: { timeoutMs: 3000 } });
    try {
      const bot = await newBot();
      const r = await hostileReceiver((res, g, n) => (n === 1 ? trickle(res, g) : res.end()));
      await bot.api("setWebhook", { url: r.url });
      await stack.platform.pushUpdate(bot.id, userMessage(11, "slow"));
      await eventually(
        () => r.got.length >= 2,
        20_000,
        () => `a second attempt (${r.got.length} so far)`,
      );
      const [first, second] = r.got;
      expect(second!.update.update_id).toBe(first!.update.update_id);
      // The first answer had 200 and its headers, and was cut while it still trickled.
      expect(first!.ended).toBe("closed");
      expect(first!.written).toBeGreaterThan(0);
      // The deadline starts before the connection and the request are made: the first request
      // arrived up to that much after it (1 s of margin for a loaded machine), and was cut at it.
      expect(second!.at - first!.at).toBeGreaterThanOrEqual(2000);
      expect((await info(bot)).last_error_message).toBe("Read timeout expired");
      await eventually(async () => (await info(bot)).pending_update_count === 0);
    } finally {
      await worker.close();
    }
  });
});

describe("a 2xx answer longer than the cap", () => {
  it("is cut at the cap whatever its framing: the update counts as delivered, its method is not run, last_error_message says why", async () => {
    const worker = startWorker(stack);
    try {
      const bot = await newBot();
      const pad = "x".repeat(64 * 1024);
      const total = 64 * 1024 * 1024;
      const r = await hostileReceiver((res, g, n) => {
        res.writeHead(200, { "content-type": "application/json" }); // no Content-Length: chunked
        if (n > 1) {
          res.end(JSON.stringify({ method: "sendMessage", chat_id: 31, text: "short answer" }));
          return;
        }
        // A sendMessage whose `text` never ends, written as fast as the worker reads it.
        const write = () => {
          let more = true;
          while (more && g.written < total) {
            const chunk = g.written === 0 ? `{"method":"sendMessage","chat_id":31,"text":"long answer ${pad}` : pad;
            g.written += chunk.length;
            more = res.write(chunk);
          }
          if (g.written >= total) res.end('"}');
        };
        res.on("drain", write);
        write();
      });
      const before = metricIn(
        await worker.registry.render(),
        "starpost_webhook_reply_methods_total",
        'result="too_long"',
      );
      await bot.api("setWebhook", { url: r.url });
      await stack.platform.pushUpdate(bot.id, [userMessage(31, "first"), userMessage(31, "second")]);
      // The second answer's method runs: the first's would have run before it.
      await eventually(
        async () => Object.values(await stack.redis.hgetall(keys.messages(bot.id))).some((m) => m.includes("short")),
        20_000,
        "the second answer's message",
      );
      const stored = Object.values(await stack.redis.hgetall(keys.messages(bot.id)));
      expect(stored.some((m) => m.includes("long answer"))).toBe(false);
      expect(r.got).toHaveLength(2); // delivered once each: an ignored answer is no failure
      await eventually(() => r.got[0]!.ended !== undefined, 10_000, "the long answer to be cut");
      expect(r.got[0]!.ended).toBe("closed");
      expect(r.got[0]!.written).toBeLessThan(total);
      // The second answer's method may run before its update is confirmed.
      await eventually(async () => (await info(bot)).pending_update_count === 0, 10_000, "both confirmed");
      expect((await info(bot)).last_error_message).toBe("Webhook answer ignored: longer than 1048576 bytes");
      expect(
        metricIn(await worker.registry.render(), "starpost_webhook_reply_methods_total", 'result="too_long"'),
      ).toBe(before + 1);
    } finally {
      await worker.close();
    }
  });
});

describe("the process's budget for answers", () => {
  it("ignores an answer that does not fit in it, rather than waiting for room", async () => {
    // A 64 KiB budget: one 256 KiB answer (under the 1 MiB cap) cannot fit, whoever else reads.
    const worker = startWorker(stack, { sender: { replyBudgetBytes: 64 * 1024 } });
    try {
      const bot = await newBot();
      const text = "y".repeat(256 * 1024);
      const r = await hostileReceiver((res) => {
        res.writeHead(200, { "content-type": "application/json" });
        res.end(JSON.stringify({ method: "sendMessage", chat_id: 41, text }));
      });
      await bot.api("setWebhook", { url: r.url });
      await stack.platform.pushUpdate(bot.id, userMessage(41, "big"));
      await eventually(async () => (await info(bot)).pending_update_count === 0);
      await eventually(
        async () => (await info(bot)).last_error_message === "Webhook answer ignored: too many long answers at once",
        10_000,
        "the last error to say why",
      );
      expect(r.got).toHaveLength(1);
      // Counted once the step that recorded the error has answered.
      await expect
        .poll(async () =>
          metricIn(await worker.registry.render(), "starpost_webhook_reply_methods_total", 'result="no_memory"'),
        )
        .toBe(1);
    } finally {
      await worker.close();
    }
  });
});

describe("receivers that stall", () => {
  it("do not keep a healthy bot's updates waiting, even when they outnumber the worker's slots", async () => {
    // 16 slots (2 per delivery queue shard); 40 bots whose receivers answer 200 and trickle for
    // longer than the test lasts. Each stalled attempt holds a slot for `slowMs`, then its drain
    // runs on in the retry timer's slots.
    const stalling = await Promise.all(
      Array.from({ length: 40 }, async () => {
        const bot = await newBot();
        const r = await hostileReceiver((res, g) => trickle(res, g));
        await bot.api("setWebhook", { url: r.url });
        return { bot, r };
      }),
    );
    const worker = startWorker(stack, { concurrency: 16, slowMs: 300, sender: { timeoutMs: 120_000 } });
    try {
      await Promise.all(stalling.map(({ bot }) => stack.platform.pushUpdate(bot.id, userMessage(1, "stall"))));
      // Every stalling receiver got its update and is trickling its answer.
      await eventually(
        () => stalling.every(({ r }) => r.got.length === 1 && r.got[0]!.written > 0),
        30_000,
        () => `every stalling receiver to be trickling (${stalling.filter(({ r }) => r.got.length > 0).length} of 40)`,
      );
      const healthy = await newBot();
      const h = await hostileReceiver((res) => res.end());
      await healthy.api("setWebhook", { url: h.url, max_connections: 10 });
      await stack.platform.pushUpdate(
        healthy.id,
        Array.from({ length: 20 }, (_, i) => userMessage(1 + (i % 10), `healthy ${i}`)),
      );
      await eventually(
        () => h.got.length === 20,
        20_000,
        () => `the healthy bot's 20 updates (${h.got.length})`,
      );
      // ... while every stalled attempt was still held: none was cut, none sent again.
      for (const { r } of stalling) {
        expect(r.got).toHaveLength(1);
        expect(r.got[0]!.ended).toBeUndefined();
      }
    } finally {
      for (const { r } of stalling) await r.close();
      await worker.close();
    }
  });
});
