import { Writable } from "node:stream";
import { pino } from "pino";
import * as undici from "undici";
import { describe, expect, it } from "vitest";
import { Agent, createHttpServer, Pool } from "@starpost/http";

// The modules that reach past a dependency's public API (packages/http/src/undici.ts and
// request-logger.ts): each test fails when a version of the dependency stops honouring what the
// module relies on.

describe("undici's Pool and Agent from their own modules", () => {
  it("are the classes undici's index exports, with request() on every dispatcher", () => {
    expect(Agent).toBe(undici.Agent);
    expect(Pool).toBe(undici.Pool);
    expect(typeof Pool.prototype.request).toBe("function");
    expect(typeof Agent.prototype.request).toBe("function");
  });
});

describe("the lazy request logger", () => {
  const collect = () => {
    const lines: Record<string, unknown>[] = [];
    const stream = new Writable({
      write(chunk: Buffer, _enc, done) {
        lines.push(JSON.parse(chunk.toString()) as Record<string, unknown>);
        done();
      },
    });
    return { lines, logger: pino({ level: "info" }, stream) };
  };

  it("logs a request's lines with its reqId, its children's too, and nothing at a disabled level", async () => {
    const { lines, logger } = collect();
    const app = createHttpServer(logger);
    app.get("/x", async (req) => {
      req.log.debug("not written");
      req.log.info({ a: 1 }, "first");
      req.log.child({ part: "inner" }).warn("second");
      return { ok: true };
    });
    const res = await app.inject({ method: "GET", url: "/x" });
    await app.close();
    expect(res.statusCode).toBe(200);
    const mine = lines.filter((l) => l.msg === "first" || l.msg === "second" || l.msg === "not written");
    expect(mine).toEqual([
      expect.objectContaining({ level: 30, msg: "first", a: 1, reqId: expect.any(String) }),
      expect.objectContaining({ level: 40, msg: "second", part: "inner", reqId: expect.any(String) }),
    ]);
    expect(mine[0]!.reqId).toBe(mine[1]!.reqId);
  });

  it("gives two requests their own reqId", async () => {
    const { lines, logger } = collect();
    const app = createHttpServer(logger);
    app.get("/x", async (req) => (req.log.info("hit"), { ok: true }));
    await app.inject({ method: "GET", url: "/x" });
    await app.inject({ method: "GET", url: "/x" });
    await app.close();
    const ids = lines.filter((l) => l.msg === "hit").map((l) => l.reqId);
    expect(ids).toHaveLength(2);
    expect(ids[0]).not.toBe(ids[1]);
  });
});
