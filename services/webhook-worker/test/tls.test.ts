import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { botClient, startReceiver, startStack, userMessage, type Receiver, type TestStack } from "@starpost/testkit";
import { eventually, startWorker } from "./worker-harness.ts";

/**
 * https webhooks are verified against the operator's CA bundle (WEBHOOK_CA_FILE, the Debian
 * system bundle by default). Here the bundle is the system one plus a test CA, as an operator
 * adding a CA to the trust store would have it.
 */

let dir: string;
let stack: TestStack;
let worker: ReturnType<typeof startWorker>;
const receivers: Receiver[] = [];
const pem: Record<string, string> = {};

function openssl(...args: string[]) {
  execFileSync("openssl", args, { cwd: dir, stdio: "ignore" });
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "starpost-tls-"));
  const ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"];
  openssl("req", "-x509", ...ec, "-keyout", "ca.key", "-out", "ca.crt", "-days", "2", "-subj", "/CN=starpost test CA");
  openssl("req", ...ec, "-keyout", "server.key", "-out", "server.csr", "-subj", "/CN=127.0.0.1");
  writeFileSync(join(dir, "san.ext"), "subjectAltName=IP:127.0.0.1\n");
  openssl(
    "x509",
    "-req",
    "-in",
    "server.csr",
    "-CA",
    "ca.crt",
    "-CAkey",
    "ca.key",
    "-CAcreateserial",
    "-out",
    "server.crt",
    "-days",
    "2",
    "-extfile",
    "san.ext",
  );
  openssl(
    "req",
    "-x509",
    ...ec,
    "-keyout",
    "self.key",
    "-out",
    "self.crt",
    "-days",
    "2",
    "-subj",
    "/CN=127.0.0.1",
    "-addext",
    "subjectAltName=IP:127.0.0.1",
  );
  for (const f of ["ca.crt", "server.key", "server.crt", "self.key", "self.crt"])
    pem[f] = readFileSync(join(dir, f), "utf8");
  const bundle = `${readFileSync("/etc/ssl/certs/ca-certificates.crt", "utf8")}\n${pem["ca.crt"]}`;
  stack = await startStack();
  worker = startWorker(stack, { sender: { ca: bundle } });
});
afterAll(async () => {
  await worker.close();
  for (const r of receivers) await r.close();
  await stack.close();
  rmSync(dir, { recursive: true, force: true });
});

async function setUp(tls: { key: string; cert: string }) {
  const r = await startReceiver({ tls });
  receivers.push(r);
  const bot = await stack.platform.createBot();
  const api = botClient(stack.gatewayUrl, bot.token);
  expect((await api("setWebhook", { url: r.url })).body.description).toBe("Webhook was set");
  await stack.platform.pushUpdate(bot.id, userMessage(1, "over tls"));
  return { r, api };
}

describe("https webhooks", () => {
  it("deliver to a receiver whose certificate chains to a CA in the trust bundle", async () => {
    const { r, api } = await setUp({ key: pem["server.key"]!, cert: pem["server.crt"]! });
    await r.waitFor((got) => got.length === 1);
    expect(r.received[0]!.update.message.text).toBe("over tls");
    await eventually(async () => (await api("getWebhookInfo")).body.result.pending_update_count === 0);
    expect((await api("getWebhookInfo")).body.result.last_error_message).toBeUndefined();
  });

  it("fail with a clear last error for a self-signed certificate, and keep the update", async () => {
    const { r, api } = await setUp({ key: pem["self.key"]!, cert: pem["self.crt"]! });
    await eventually(async () => (await api("getWebhookInfo")).body.result.last_error_message !== undefined);
    const info = (await api("getWebhookInfo")).body.result;
    expect(info.last_error_message).toBe("SSL error: certificate verify failed: self-signed certificate");
    expect(info.pending_update_count).toBe(1);
    expect(r.received).toHaveLength(0);
  });
});
