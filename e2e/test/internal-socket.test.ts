import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { botClient, startLocalStack, userMessage, type LocalStack } from "@starpost/testkit";

// INTERNAL_SOCKET_DIR (what `npm start` sets): the services also listen on Unix sockets there and
// the gateway and workers call them on those. Their URLs point nowhere here, so every forwarded
// call that succeeds went over a socket.
const dir = mkdtempSync(join(tmpdir(), "starpost-sockets-"));
let local: LocalStack;
beforeAll(async () => {
  local = await startLocalStack({
    extraEnv: { INTERNAL_SOCKET_DIR: dir },
    env: { LOG_LEVEL: "warn", INVOICES_URL: "http://127.0.0.1:1", UPDATES_URL: "http://127.0.0.1:1" },
  });
}, 120_000);
afterAll(async () => {
  await local?.stop();
  rmSync(dir, { recursive: true, force: true });
});

it("forwards calls to invoices and updates over their Unix sockets", async () => {
  expect(existsSync(join(dir, "invoices.sock")) && existsSync(join(dir, "updates.sock"))).toBe(true);
  const bot = await local.platform.createBot();
  const call = botClient(local.gatewayUrl, bot.token);
  expect((await local.platform.putChat(bot.id, { id: 7, type: "private", first_name: "Ann" })).status).toBe(200);
  const sent = await call("sendInvoice", {
    chat_id: 7,
    title: "Gold",
    description: "A bag",
    payload: "p",
    currency: "XTR",
    prices: [{ label: "Gold", amount: 5 }],
  });
  expect(sent.body).toMatchObject({ ok: true, result: { chat: { id: 7 }, invoice: { total_amount: 5 } } });
  expect((await local.platform.pushUpdate(bot.id, userMessage(7, "over the socket"))).status).toBe(200);
  const got = await call("getUpdates", { timeout: 5 });
  expect(got.body.result.map((u: { message: { text: string } }) => u.message.text)).toEqual(["over the socket"]);
});
