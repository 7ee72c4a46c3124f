import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isReservedIp } from "@starpost/shared";
import { botClient, startReceiver, startStack, userMessage, type Receiver, type TestStack } from "@starpost/testkit";
import { eventually, startWorker } from "./worker-harness.ts";

/**
 * The SSRF guard at delivery: the stack lets setWebhook accept 127.0.0.1 (as if DNS had said
 * something public then), but this worker does not allow private networks, so it refuses to
 * connect. A name is resolved again for every new connection.
 */

let stack: TestStack;
let worker: ReturnType<typeof startWorker>;
let receiver: Receiver;

beforeAll(async () => {
  stack = await startStack();
  worker = startWorker(stack, { sender: { allowPrivateNetworks: false } });
  receiver = await startReceiver();
});
afterAll(async () => {
  await worker.close();
  await receiver.close();
  await stack.close();
});

describe("delivery to reserved addresses", () => {
  for (const [host, ip] of [
    ["127.0.0.1", "127.0.0.1"],
    ["localhost", "127.0.0.1"],
    ["[::ffff:0:7f00:1]", "::ffff:0:7f00:1"],
    ["[::127.0.0.1]", "::7f00:1"],
  ]) {
    it(`is refused for ${host}, with the reason as the last error`, async () => {
      const bot = await stack.platform.createBot();
      const api = botClient(stack.gatewayUrl, bot.token);
      await api("setWebhook", { url: `http://${host}:${receiver.port}/hook` });
      await stack.platform.pushUpdate(bot.id, userMessage(1, "to a private address"));
      await eventually(async () => (await api("getWebhookInfo")).body.result.last_error_message !== undefined);
      const info = (await api("getWebhookInfo")).body.result;
      expect(info.last_error_message).toBe(`IP address ${ip} is reserved`);
      expect(info.pending_update_count).toBe(1);
      expect(receiver.received).toHaveLength(0);
    });
  }

  it("classifies addresses like the official server's reserved ranges", () => {
    const reserved = [
      "0.0.0.0",
      "10.0.0.1",
      "100.64.0.1",
      "127.0.0.1",
      "169.254.169.254",
      "172.16.0.1",
      "172.31.255.255",
      "192.168.0.1",
      "192.0.2.1",
      "198.18.0.1",
      "224.0.0.1",
      "255.255.255.255",
      "::",
      "::1",
      "fe80::1",
      "fc00::1",
      "fd12:3456::1",
      "ff02::1",
      "2001:db8::1",
      "::ffff:10.0.0.1",
      "::ffff:7f00:1",
      "64:ff9b::a00:1",
      "2002:c0a8:101::1",
    ];
    const open = [
      "1.1.1.1",
      "8.8.8.8",
      "172.32.0.1",
      "100.128.0.1",
      "93.184.216.34",
      "2606:4700::1111",
      "::ffff:8.8.8.8",
      "2002:808:808::1",
    ];
    for (const ip of reserved) expect({ ip, reserved: isReservedIp(ip) }).toEqual({ ip, reserved: true });
    for (const ip of open) expect({ ip, reserved: isReservedIp(ip) }).toEqual({ ip, reserved: false });
  });
});
