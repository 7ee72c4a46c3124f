import { connect } from "node:net";
import { gzipSync } from "node:zlib";
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

const METHODS = [
  "getMe",
  "getUpdates",
  "sendInvoice",
  "setWebhook",
  "getWebhookInfo",
  "deleteWebhook",
  "answerPreCheckoutQuery",
  "refundStarPayment",
  "nope",
];
const CONTENT_TYPES = [
  "application/json",
  "application/x-www-form-urlencoded",
  "multipart/form-data; boundary=x",
  "text/plain",
  "application/octet-stream",
  "",
  "application/json; charset=utf-8",
  // Multipart boundary cases: missing, without a value, empty, quoted, too long, in odd places.
  "multipart/form-data",
  "multipart/form-data; boundary",
  "multipart/form-data; boundary=",
  'multipart/form-data; boundary="x"',
  `multipart/form-data; boundary=${"b".repeat(71)}`,
  "multipart/form-data; charset=utf-8; BOUNDARY=x",
  "application/json, multipart/form-data",
];
/** Content codings: none, gzip of the body, a gzip header on plain bytes, and codings the reference refuses. */
const ENCODINGS = ["", "gzip", "gzip-header-only", "deflate", "br", "identity"] as const;

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
  fc
    .dictionary(
      fc.constantFrom(
        "offset",
        "limit",
        "timeout",
        "chat_id",
        "title",
        "prices",
        "url",
        "secret_token",
        "allowed_updates",
        "ok",
      ),
      fc.oneof(fc.string(), fc.integer(), fc.boolean(), fc.constant(null), fc.array(fc.anything(), { maxLength: 3 })),
    )
    .map((d) => JSON.stringify(d)),
  // Multipart bodies for boundary "x", whole or cut anywhere, with odd part headers.
  fc
    .tuple(
      fc.array(
        fc.tuple(
          fc.constantFrom(
            'form-data; name="title"',
            'form-data; name="url"',
            "form-data",
            "attachment",
            'form-data; name="c"; filename="f"',
            "",
          ),
          fc.string(),
        ),
        { maxLength: 4 },
      ),
      fc.nat(),
      fc.boolean(),
    )
    .map(([parts, cut, whole]) => {
      const text =
        parts.map(([d, v]) => `--x\r\n${d === "" ? "" : `Content-Disposition: ${d}`}\r\n\r\n${v}\r\n`).join("") +
        "--x--\r\n";
      return whole ? text : text.slice(0, cut % (text.length + 1));
    }),
);

function isEnvelope(status: number, body: unknown): boolean {
  if (typeof body !== "object" || body === null) return false;
  const b = body as { ok?: unknown; error_code?: unknown; description?: unknown };
  if (b.ok === true) return status === 200;
  return b.ok === false && b.error_code === status && typeof b.description === "string";
}

describe("malformed requests", () => {
  it("get only JSON envelopes with 4xx codes, never a 5xx", async () => {
    const runs = 1500;
    let asserted = 0;
    /** Answers past the token and method checks: the requests that exercised the parameter readers. */
    let reachedMethod = 0;
    await fc.assert(
      fc.asyncProperty(
        pathArb,
        fc.constantFrom("GET", "POST"),
        fc.constantFrom(...CONTENT_TYPES),
        fc.constantFrom(...ENCODINGS),
        bodyArb,
        fc.webQueryParameters(),
        async (path, method, type, encoding, body, query) => {
          const bytes = Buffer.isBuffer(body) ? body : Buffer.from(body);
          const headers: Record<string, string> =
            encoding === "" ? {} : { "content-encoding": encoding === "gzip-header-only" ? "gzip" : encoding };
          const res = await http(stack.gatewayUrl, method, `${path}?${query}`, {
            body: method === "POST" ? (encoding === "gzip" ? gzipSync(bytes) : bytes) : undefined,
            contentType: type || null,
            headers,
          });
          expect(res.status).toBeLessThan(500);
          expect(isEnvelope(res.status, res.body), `${res.status} ${JSON.stringify(res.body)}`).toBe(true);
          asserted++;
          if (path.startsWith(`/bot${token}/`) && res.status !== 401 && res.status !== 404) reachedMethod++;
        },
      ),
      // FUZZ_SEED=<seed from a failure report> replays that run.
      { numRuns: runs, ...(process.env.FUZZ_SEED ? { seed: Number(process.env.FUZZ_SEED) } : {}) },
    );
    // Every run got to its assertions (none ended early), and a good share reached a method.
    expect(asserted).toBe(runs);
    expect(reachedMethod).toBeGreaterThan(runs / 10);
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
