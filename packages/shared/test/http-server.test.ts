import { connect } from "node:net";
import { describe, expect, it } from "vitest";
import { Client } from "undici";
import { abortOnClose, acceptH2c, createHttpServer, createLogger } from "@starpost/shared";
import { eventually } from "@starpost/testkit";

describe("createHttpServer", () => {
  it("closes even when a client holds a connection that never sent a request", async () => {
    const app = createHttpServer(createLogger("test", "silent"));
    app.get("/x", async () => ({ ok: true }));
    await app.listen({ port: 0, host: "127.0.0.1" });
    const { port } = app.server.address() as { port: number };
    // A pre-connected socket (HTTP clients open them ahead of the next request).
    const socket = connect(port, "127.0.0.1");
    await new Promise((r) => socket.once("connect", r));
    const closedByServer = new Promise((r) => socket.once("close", r));
    // And a used keep-alive connection, idle now.
    expect((await fetch(`http://127.0.0.1:${port}/x`)).status).toBe(200);

    const closing = app.close().then(() => "closed");
    const stuck = new Promise((r) => setTimeout(() => r("still open after 5 s"), 5000).unref());
    expect(await Promise.race([closing, stuck])).toBe("closed");
    await closedByServer;
  });

  it("takes HTTP/2 without TLS beside HTTP/1.1 on one port: held calls share a connection, a caller leaving aborts", async () => {
    const app = createHttpServer(createLogger("test", "silent"));
    acceptH2c(app);
    const aborted: string[] = [];
    const release: (() => void)[] = [];
    app.post("/hold", async (req, reply) => {
      const signal = abortOnClose(reply);
      const name = (req.body as { name: string }).name;
      signal.addEventListener("abort", () => aborted.push(name));
      await new Promise<void>((r) => release.push(r));
      return { name, version: req.raw.httpVersion };
    });
    app.get("/version", async (req) => ({ version: req.raw.httpVersion }));
    await app.listen({ port: 0, host: "127.0.0.1" });
    const { port } = app.server.address() as { port: number };
    const h2 = new Client(`http://127.0.0.1:${port}`, {
      allowH2: true,
      pipelining: 100,
      ...({ useH2c: true } as object),
    });
    const left = new AbortController();
    const hold = (name: string, signal?: AbortSignal) =>
      h2
        .request({
          method: "POST",
          path: "/hold",
          body: JSON.stringify({ name }),
          idempotent: true,
          signal,
          headers: { "content-type": "application/json" },
        })
        .then((r) => r.body.json());
    const first = hold("first");
    const second = hold("second", left.signal).catch(() => "left");
    await eventually(() => release.length === 2, 10_000, "both held at once");
    left.abort();
    expect(await second).toBe("left");
    await eventually(() => aborted.includes("second"), 10_000, "the server to see the caller leave");
    // HTTP/1.1 still works on the same port, meanwhile.
    expect(await (await fetch(`http://127.0.0.1:${port}/version`)).json()).toEqual({ version: "1.1" });
    for (const r of release) r();
    expect(await first).toEqual({ name: "first", version: "2.0" });
    expect(aborted).toEqual(["second"]);
    await app.close();
    await h2.close();
  });
});
