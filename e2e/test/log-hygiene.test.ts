import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { botClient, eventually, http, startLocalStack, userMessage, type LocalStack } from "@starpost/testkit";

const PLATFORM_TOKEN = "log-hygiene-platform-token-0123456789";
const INTERNAL_TOKEN = "log-hygiene-internal-token-0123456789";
const lines: string[] = [];
let local: LocalStack;
let stopped = false;

beforeAll(async () => {
  local = await startLocalStack({
    platformToken: PLATFORM_TOKEN,
    workers: 1,
    env: { INTERNAL_TOKEN, LOG_LEVEL: "debug" },
    onLine: (_name, line) => lines.push(line),
  });
});
afterAll(async () => {
  if (!stopped) await local?.stop();
});

describe("logs", () => {
  it("never contain a bot token, a webhook secret or password, or the platform and internal tokens", async () => {
    const { stack, platform } = local;
    const secrets = [PLATFORM_TOKEN, INTERNAL_TOKEN];
    for (let i = 0; i < 5; i++) {
      const bot = await platform.createBot();
      const rotated = (await platform.call("POST", `/bots/${bot.id}/token`)).body.result.token as string;
      secrets.push(bot.token, bot.token.split(":")[1]!, rotated, rotated.split(":")[1]!);
      const call = botClient(stack.gatewayUrl, rotated);
      const secret = `webhook_secret_${i}_abcdefghijklmnop`;
      secrets.push(secret);
      await platform.pushUpdate(bot.id, userMessage(1000 + i, "hello"));
      await call("getMe");
      await call("getUpdates", { timeout: 0 });
      const password = `hook_password_${i}_qrstuvwxyz`;
      secrets.push(password);
      await call("setWebhook", { url: `http://hook:${password}@127.0.0.1:9/hook`, secret_token: secret });
      await call("getWebhookInfo");
      await call("deleteWebhook");
      await http(stack.gatewayUrl, "GET", `/bot${bot.token}/getMe`); // the old, rotated token
      await http(stack.gatewayUrl, "POST", `/bot${rotated}/getMe`, { body: "{broken" });
      await http(stack.gatewayUrl, "GET", `/bot${rotated}/noSuchMethod?x=${rotated}`);
    }
    await http(stack.gatewayUrl, "POST", "/platform/v1/bots", {
      body: {},
      headers: { authorization: `Bearer ${PLATFORM_TOKEN}x` },
    });
    // Every line the processes wrote, up to their exit: read once their output is closed.
    await local.stop();
    stopped = true;
    await eventually(
      () => local.stack.processes.every((p) => p.child.stdout!.closed && p.child.stderr!.closed),
      10_000,
      "every process's output closed",
    );
    expect(lines.length).toBeGreaterThan(50); // debug logging really ran
    const leaks = lines.filter((line) => secrets.some((s) => line.includes(s)));
    expect(leaks).toEqual([]);
  });
});
