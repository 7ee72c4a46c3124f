import { afterAll, beforeAll, expect, it } from "vitest";
import { botClient, eventually, http, startLocalStack, userMessage, type LocalStack } from "@starpost/testkit";

/**
 * A frozen Redis (SIGSTOP: the connections stay open, nothing is answered) fails calls within the
 * command timeout with 503 and retry_after instead of holding them, /readyz says 503 within a
 * second, one line per process names the cause, and when Redis thaws everything works again
 * without a restart; what was acknowledged before is still there.
 */
const COMMAND_TIMEOUT_MS = 1_500;

let local: LocalStack;
const lines: { name: string; line: string }[] = [];
let frozen = false;
const thaw = () => {
  if (frozen) local.redis.process.kill("SIGCONT");
  frozen = false;
};

beforeAll(async () => {
  local = await startLocalStack({
    cluster: false,
    // /readyz gives up on its checks after READY_TIMEOUT_MS: 300 ms leaves a wide margin under the 1 s asserted.
    env: { REDIS_COMMAND_TIMEOUT_MS: String(COMMAND_TIMEOUT_MS), READY_TIMEOUT_MS: "300" },
    onLine: (name, line) => lines.push({ name, line }),
  });
}, 90_000);
afterAll(async () => {
  thaw();
  await local?.stop();
}, 60_000);

const timed = async <T>(call: () => Promise<T>) => {
  const started = Date.now();
  const result = await call();
  return { result, ms: Date.now() - started };
};

it("answers 503 with retry_after within the command timeout while Redis is frozen, and works again once it thaws", async () => {
  const bot = await local.platform.createBot();
  const call = botClient(local.gatewayUrl, bot.token);
  expect((await call("getMe")).status).toBe(200);
  expect((await local.platform.pushUpdate(bot.id, userMessage(7, "before the freeze"))).status).toBe(200);

  local.redis.process.kill("SIGSTOP");
  frozen = true;
  try {
    const ready = await timed(() => http(local.gatewayUrl, "GET", "/readyz"));
    expect(ready.result.status).toBe(503);
    expect(ready.ms).toBeLessThan(1_000);

    const [push, poll, poll2] = await Promise.all([
      timed(() => local.platform.pushUpdate(bot.id, userMessage(7, "during the freeze"))),
      timed(() => call("getUpdates", { timeout: 0 })),
      timed(() => call("getUpdates", { timeout: 0 })),
    ]);
    for (const answer of [push, poll, poll2]) {
      expect(answer.result.status).toBe(503);
      expect(answer.result.body).toMatchObject({
        ok: false,
        error_code: 503,
        description: "Service Unavailable: storage is not answering, retry later",
        parameters: { retry_after: expect.any(Number) },
      });
      expect(answer.result.headers["retry-after"]).toBe(String(answer.result.body.parameters.retry_after));
      // The command timeout, and a margin for a loaded machine: never Redis's own time.
      expect(answer.ms).toBeLessThan(COMMAND_TIMEOUT_MS + 2_000);
    }
  } finally {
    thaw();
  }

  await eventually(async () => (await http(local.gatewayUrl, "GET", "/readyz")).status === 200, 20_000, "ready again");
  expect((await local.platform.pushUpdate(bot.id, userMessage(7, "after the thaw"))).status).toBe(200);
  const texts = ((await call("getUpdates", { timeout: 0 })).body.result as { message: { text: string } }[]).map(
    (u) => u.message.text,
  );
  // What was acknowledged is there; the push answered 503 may or may not have been applied.
  expect(texts[0]).toBe("before the freeze");
  expect(texts.at(-1)).toBe("after the thaw");

  // One line per process names the cause, however many calls it answered 503.
  const named = lines.filter((l) => l.line.includes("redis is not answering"));
  expect(named.length).toBeGreaterThanOrEqual(1);
  const perProcess = new Map<string, number>();
  for (const l of named) perProcess.set(l.name, (perProcess.get(l.name) ?? 0) + 1);
  for (const [name, n] of perProcess) expect(n, name).toBe(1);
  // and no other error line came with it.
  const errors = lines.filter((l) => /"level":(5|6)0/.test(l.line) && !l.line.includes("redis is not answering"));
  expect(errors.map((l) => `${l.name}: ${l.line}`)).toEqual([]);
}, 90_000);
