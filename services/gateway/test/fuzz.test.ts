import { connect } from "node:net";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { http, startStack, type TestStack } from "@starpost/testkit";

let stack: TestStack;
let token: string;

beforeAll(async () => {
  stack = await startStack();
  token = (await stack.platform.createBot()).token;
});
afterAll(() => stack.close());

const METHODS = ["getMe", "getUpdates", "sendInvoice", "setWebhook", "getWebhookInfo", "deleteWebhook", "answerPreCheckoutQuery", "refundStarPayment", "nope"];
const CONTENT_TYPES = ["application/json", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x", "text/plain", "application/octet-stream", "", "application/json; charset=utf-8"];

/** A path that is sometimes right, sometimes subtly wrong. */
const pathArb = fc.oneof(
  fc.constantFrom(...METHODS).map((m) => `/bot${token}/${m}`),
  fc.tuple(fc.string(), fc.constantFrom(...METHODS)).map(([t, m]) => `/bot${encodeURIComponent(t)}/${m}`),
  fc.tuple(fc.integer(), fc.string({ maxLength: 90 })).map(([id, s]) => `/bot${id}:${encodeURIComponent(s)}/getMe`),
  fc.webPath(),
  fc.string().map((s) => `/${encodeURIComponent(s)}`),
);

const bodyArb = fc.oneof(
  fc.json(),
  fc.string(),
  fc.uint8Array({ maxLength: 2048 }).map((b) => Buffer.from(b)),
  fc.dictionary(fc.constantFrom("offset", "limit", "timeout", "chat_id", "title", "prices", "url", "secret_token", "allowed_updates", "ok"), fc.oneof(fc.string(), fc.integer(), fc.boolean(), fc.constant(null), fc.array(fc.anything(), { maxLength: 3 }))).map((d) => JSON.stringify(d)),
);

function isEnvelope(status: number, body: unknown): boolean {
  if (typeof body !== "object" || body === null) return false;
  const b = body as { ok?: unknown; error_code?: unknown; description?: unknown };
  if (b.ok === true) return status === 200;
  return b.ok === false && b.error_code === status && typeof b.description === "string";
}

describe("malformed requests", () => {
  it("get only JSON envelopes with 4xx codes, never a 5xx", async () => {
    await fc.assert(
      fc.asyncProperty(pathArb, fc.constantFrom("GET", "POST"), fc.constantFrom(...CONTENT_TYPES), bodyArb, fc.webQueryParameters(), async (path, method, type, body, query) => {
        const res = await http(stack.gatewayUrl, method, `${path}?${query}`, {
          body: method === "POST" ? body : undefined,
          contentType: type || null,
        });
        expect(res.status).toBeLessThan(500);
        expect(isEnvelope(res.status, res.body), `${res.status} ${JSON.stringify(res.body)}`).toBe(true);
      }),
      // FUZZ_SEED=<seed from a failure report> replays that run.
      { numRuns: 1500, ...(process.env.FUZZ_SEED ? { seed: Number(process.env.FUZZ_SEED) } : {}) },
    );
  });

  it("answers random bytes on the socket with a JSON 400 and stays up", async () => {
    const { port } = new URL(stack.gatewayUrl);
    await fc.assert(
      fc.asyncProperty(fc.uint8Array({ minLength: 1, maxLength: 512 }), async (bytes) => {
        const answer = await new Promise<string>((resolve) => {
          const socket = connect(Number(port), "127.0.0.1");
          let data = "";
          socket.on("data", (d) => (data += d.toString("latin1")));
          socket.on("close", () => resolve(data));
          socket.on("error", () => resolve(data));
          socket.write(Buffer.from(bytes));
          socket.end();
          setTimeout(() => socket.destroy(), 2000);
        });
        // Either the server saw a (partial) request it answers as HTTP, or nothing complete arrived.
        if (answer.length > 0) {
          expect(answer).toMatch(/^HTTP\/1\.1 4\d\d /);
          expect(answer).toContain('"ok":false');
        }
      }),
      { numRuns: 300 },
    );
    expect((await http(stack.gatewayUrl, "GET", "/healthz")).status).toBe(200);
  });
});
