/**
 * The two-hop floor: the design's topology with nothing of starpost in it. ROLE=service is a bare
 * fastify server answering the fixed JSON (on TCP, or on the Unix socket SOCKET); ROLE=gateway is a
 * bare fastify server that forwards every call, method and body unchanged, to that service over an
 * undici keep-alive pool and answers with the service's body. Prints "listening <port>" when ready
 * (the service on a socket prints port 0).
 */
import Fastify from "fastify";
import { Redis } from "ioredis";
import { Pool } from "undici";

/** The floor's one Lua step (sent by its SHA-1 once loaded): the record, then a capped log entry. */
const STEP = `redis.call("HSET", KEYS[1], ARGV[1], ARGV[2])
redis.call("HDEL", KEYS[1], ARGV[1] - 1000)
return redis.call("XADD", KEYS[2], "MAXLEN", "~", 1000, "*", "d", ARGV[2])`;

const answer = { ok: true, result: { message_id: 1, date: 0, chat: { id: 1, type: "private" } } };
const app = Fastify({ logger: false });

if (process.env.ROLE === "service") {
  app.get("/", async () => answer);
  // REDIS_URL: each POST first runs one Lua step that keeps its body durably (a record and a log
  // entry), what any service that owns state does at the least.
  const redis = process.env.REDIS_URL ? new Redis(process.env.REDIS_URL) : undefined;
  redis?.defineCommand("step", { numberOfKeys: 2, lua: STEP });
  const step = redis as unknown as { step(...args: string[]): Promise<unknown> } | undefined;
  let n = 0;
  app.post("/", async (req) => {
    await step?.step("floor:records", "floor:log", String(++n), JSON.stringify(req.body));
    return answer;
  });
  if (process.env.SOCKET) {
    await app.listen({ path: process.env.SOCKET });
    process.stdout.write("listening 0\n");
  } else {
    const address = await app.listen({ port: 0, host: "127.0.0.1" });
    process.stdout.write(`listening ${new URL(address).port}\n`);
  }
} else {
  const socketPath = process.env.SOCKET;
  // PIPELINING=n: n requests in flight on each of 64 / n sockets, instead of one on each of 64.
  const pipelining = Number(process.env.PIPELINING ?? 1);
  const pool = new Pool(socketPath ? "http://localhost" : `http://127.0.0.1:${process.env.SERVICE_PORT}`, {
    connections: Math.ceil(64 / pipelining),
    pipelining,
    ...(socketPath ? { socketPath } : {}),
  });
  const forward = async (method: "GET" | "POST", body: unknown) => {
    const res = await pool.request({
      path: "/",
      method,
      headers: method === "POST" ? { "content-type": "application/json" } : {},
      body: method === "POST" ? JSON.stringify(body) : undefined,
    });
    return res.body.json();
  };
  app.get("/", async () => forward("GET", undefined));
  app.post("/", async (req) => forward("POST", req.body));
  const address = await app.listen({ port: 0, host: "127.0.0.1" });
  process.stdout.write(`listening ${new URL(address).port}\n`);
}
