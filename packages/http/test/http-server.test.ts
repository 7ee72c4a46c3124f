import { mkdtempSync, rmSync } from "node:fs";
import { request } from "node:http";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createLogger } from "@starpost/runtime";
import { createHttpServer, internalSocket, listenInternalSocket } from "@starpost/http";

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

  it("answers bytes that are not an HTTP request with the Bot API's 400 and closes", async () => {
    const app = createHttpServer(createLogger("test", "silent"));
    await app.listen({ port: 0, host: "127.0.0.1" });
    const { port } = app.server.address() as { port: number };
    const socket = connect(port, "127.0.0.1");
    let answer = "";
    socket.on("data", (chunk) => (answer += chunk.toString()));
    const closed = new Promise((r) => socket.once("close", r));
    socket.write("not http at all\r\n\r\n");
    await closed;
    await app.close();
    expect(answer.startsWith("HTTP/1.1 400 Bad Request\r\n")).toBe(true);
    expect(JSON.parse(answer.slice(answer.indexOf("\r\n\r\n") + 4))).toEqual({
      ok: false,
      error_code: 400,
      description: "Bad Request: invalid HTTP request",
    });
  });

  it("answers on its Unix socket from the moment the socket exists, before the TCP port listens", async () => {
    const dir = mkdtempSync(join(tmpdir(), "starpost-socket-"));
    const app = createHttpServer(createLogger("test", "silent"));
    app.get("/x", async () => ({ ok: true }));
    try {
      await listenInternalSocket(app, dir, "svc");
      // The gateway connects as soon as the socket file is there; app.listen has not run yet.
      const status = await new Promise<number>((resolve, reject) =>
        request({ socketPath: internalSocket(dir, "svc"), path: "/x", agent: false }, (res) => {
          res.resume();
          resolve(res.statusCode!);
        })
          .once("error", reject)
          .end(),
      );
      expect(status).toBe(200);
    } finally {
      await app.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
