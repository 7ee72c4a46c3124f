import { connect } from "node:net";
import { describe, expect, it } from "vitest";
import { createHttpServer, createLogger } from "@starpost/shared";

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
});
