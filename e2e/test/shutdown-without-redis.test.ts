import { afterAll, beforeAll, expect, it } from "vitest";
import { botClient, startLocalStack, stopProcess, type LocalStack } from "@starpost/testkit";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";

/**
 * Every service asked to stop (SIGTERM) exits within a few seconds even when Redis is gone: it
 * must not wait for a reconnect that never comes (compose kills a container 10 s after asking).
 */
const EXIT_WITHIN_MS = 5000;

let local: LocalStack;
const receiver = createServer((_req, res) => setTimeout(() => res.end("ok"), 60_000)); // a webhook that never answers in time
beforeAll(async () => {
  local = await startLocalStack();
  await new Promise<void>((r) => receiver.listen(0, "127.0.0.1", r));
}, 60_000);
afterAll(async () => {
  receiver.closeAllConnections();
  receiver.close();
  await local?.stop();
}, 60_000);

it("every process exits soon after SIGTERM with Redis killed, a webhook request in flight", async () => {
  const bot = await local.platform.createBot();
  const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
  expect((await botClient(local.gatewayUrl, bot.token)("setWebhook", { url })).body.ok).toBe(true);
  const inFlight = new Promise<void>((r) => receiver.once("request", () => r()));
  await local.platform.pushUpdate(bot.id, {
    message: { message_id: 1, chat: { id: 5, type: "private", first_name: "A" }, date: 1, text: "hi" },
  });
  await inFlight;

  await stopProcess(local.redis.process, "SIGKILL");
  const times = await Promise.all(
    local.stack.processes.map(async (p) => {
      const started = Date.now();
      await stopProcess(p.child, "SIGTERM", 10_000);
      return { name: p.name, ms: Date.now() - started, signal: p.child.signalCode };
    }),
  );
  for (const t of times) {
    expect(t.signal, `${t.name} needed SIGKILL`).toBeNull();
    expect(t.ms, `${t.name} took ${t.ms} ms`).toBeLessThan(EXIT_WITHIN_MS);
  }
}, 60_000);
