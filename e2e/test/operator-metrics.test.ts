import { afterAll, beforeAll, expect, it } from "vitest";
import {
  botClient,
  eventually,
  metricIn,
  startLocalStack,
  startReceiver,
  userMessage,
  type LocalStack,
  type Receiver,
} from "@starpost/testkit";

/**
 * The metrics an operator alerts on (docs/operations.md, "Alerts"), scraped from the /metrics of
 * every process of a running stack (each service its own process, as `npm start` runs them).
 */
let local: LocalStack;
let failing: Receiver;
let stalling: Receiver;
beforeAll(async () => {
  local = await startLocalStack();
  // Every answer a 500 asking for a retry in 30 s: past the drain's own short hold, so the bot goes to the retry timer.
  failing = await startReceiver({ answer: () => ({ status: 500, headers: { "retry-after": "30" } }) });
  // Answers after 60 s: the update stays in flight, its bot's drain running.
  stalling = await startReceiver({ answer: () => ({ delayMs: 60_000 }) });
}, 120_000);
afterAll(async () => {
  // The receivers first: a worker stopping waits for the requests it has in flight.
  await failing?.close();
  await stalling?.close();
  await local?.stop();
}, 60_000);

const urlsOf = (service: string) =>
  local.stack.processes.filter((p) => p.service === service).map((p) => `http://127.0.0.1:${p.port}`);
const scrape = async (service: string) =>
  Promise.all(urlsOf(service).map(async (u) => (await fetch(`${u}/metrics`)).text()));
/** The largest value of a series over a service's processes. */
const maxOf = async (service: string, name: string, labels = "") =>
  Math.max(...(await scrape(service)).map((t) => metricIn(t, name, labels)));
const sumOf = async (service: string, name: string, labels = "") =>
  (await scrape(service)).reduce((s, t) => s + metricIn(t, name, labels), 0);

async function webhookBot(receiver: Receiver) {
  const bot = await local.platform.createBot();
  expect((await botClient(local.gatewayUrl, bot.token)("setWebhook", { url: receiver.url })).body.ok).toBe(true);
  await local.platform.pushUpdate(bot.id, userMessage(7, "hello"));
  return bot;
}

it("a failing webhook: the bot is counted, its attempts by result, and its pending update ages", async () => {
  await webhookBot(failing);
  await eventually(
    async () => (await maxOf("webhook-worker", "starpost_webhook_retries_waiting")) >= 1,
    30_000,
    "the failing bot held by the retry timer",
  );
  expect(await sumOf("webhook-worker", "starpost_webhook_deliveries_total", 'result="http"')).toBeGreaterThanOrEqual(1);
  expect(await sumOf("webhook-worker", "starpost_webhook_deliveries_total", 'result="ok"')).toBe(0);
  const retrying = 'state="retrying"';
  await eventually(
    async () => (await maxOf("webhook-worker", "starpost_webhook_oldest_pending_age_seconds", retrying)) >= 1,
    30_000,
    "the failing bot's update a second old",
  );
  // Still pending: the age keeps growing between retries.
  const first = await maxOf("webhook-worker", "starpost_webhook_oldest_pending_age_seconds", retrying);
  await eventually(
    async () => (await maxOf("webhook-worker", "starpost_webhook_oldest_pending_age_seconds", retrying)) > first,
    30_000,
    "the age growing",
  );
}, 120_000);

it("a delivery in flight: its drain's oldest pending update ages as delivering", async () => {
  await webhookBot(stalling);
  await stalling.waitFor((r) => r.length >= 1, 30_000);
  await eventually(
    async () =>
      (await maxOf("webhook-worker", "starpost_webhook_oldest_pending_age_seconds", 'state="delivering"')) >= 1,
    30_000,
    "the stalled update a second old",
  );
}, 120_000);

it("every service times its Redis commands, and exports the refused-writes and slow-client counters", async () => {
  for (const service of ["gateway", "updates", "invoices", "webhook-worker"]) {
    await eventually(
      async () => (await sumOf(service, "starpost_redis_command_duration_seconds_count")) > 0,
      10_000,
      `${service}'s Redis latency`,
    );
    const [text] = await scrape(service);
    // Sub-millisecond commands land in the low buckets; the sum is a sane number of seconds.
    expect(metricIn(text!, "starpost_redis_command_duration_seconds_bucket", 'le="0.1"')).toBeGreaterThan(0);
    expect(text).toContain("# HELP starpost_redis_writes_refused_total");
  }
  const [gateway] = await scrape("gateway");
  expect(gateway).toContain("# HELP starpost_gateway_slow_clients_cut_total");
}, 60_000);
