import { afterEach, describe, expect, it } from "vitest";
import type { FastifyInstance } from "fastify";
import { createLogger, Registry } from "@starpost/runtime";
import { createHttpServer, READY_TIMEOUT_MS, registerOps } from "@starpost/http";

let app: FastifyInstance | undefined;
afterEach(async () => {
  await app?.close();
  app = undefined;
});

function opsApp(ready: () => Promise<boolean>): FastifyInstance {
  app = createHttpServer(createLogger("test", "silent"));
  registerOps(app, { registry: new Registry("test"), ready });
  return app;
}

describe("/readyz", () => {
  it("answers 200 when every dependency answers, 503 when one does not or the check throws", async () => {
    expect((await opsApp(async () => true).inject("/readyz")).statusCode).toBe(200);
    await app!.close();
    expect((await opsApp(async () => false).inject("/readyz")).statusCode).toBe(503);
    await app!.close();
    const answer = await opsApp(() => Promise.reject(new Error("Connection is closed."))).inject("/readyz");
    expect([answer.statusCode, answer.json()]).toEqual([503, { ok: false }]);
  });

  it("answers 503 within READY_TIMEOUT_MS when a dependency never answers (the image's health check waits 4 s)", async () => {
    const started = Date.now();
    const answer = await opsApp(() => new Promise<boolean>(() => {})).inject("/readyz");
    const ms = Date.now() - started;
    expect([answer.statusCode, answer.json()]).toEqual([503, { ok: false }]);
    expect(ms).toBeGreaterThanOrEqual(READY_TIMEOUT_MS - 50);
    expect(ms).toBeLessThan(4000);
  });
});
