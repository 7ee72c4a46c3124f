import { createServer as createHttp, type IncomingHttpHeaders, type Server, type ServerResponse } from "node:http";
import { createServer as createHttps } from "node:https";
import { freePort } from "./redis-server.ts";
import type { ReceiverHost } from "./target.ts";

/** One request a webhook receiver got. */
export interface Received {
  headers: IncomingHttpHeaders;
  /** the parsed JSON body (an Update). */
  update: any;
  at: number;
  /** the sender's port: which connection (and so which process) it came over. */
  remotePort: number;
  /** when the answer was sent (undefined while still pending). */
  doneAt?: number;
}

export type Answer = (
  req: Received,
  n: number,
) => { status?: number; headers?: Record<string, string>; body?: string; delayMs?: number } | undefined;

export interface Receiver {
  url: string;
  port: number;
  received: Received[];
  /** changes how the next requests are answered (default: 200, empty body). */
  answer: Answer;
  /** resolves once `predicate` holds over what was received (polls every 10 ms). */
  waitFor(predicate: (got: Received[]) => boolean, timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

/**
 * Listens on `port`, or on a port of this test fork's own block (freePort): never an ephemeral
 * port, which the kernel may have handed to another test file's receiver that a bot of that file
 * still retries (its requests would land here). A port taken meanwhile is tried again.
 */
async function listen(server: Server, port: number | undefined, host: string): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    const chosen = port ?? (await freePort());
    try {
      await new Promise<void>((resolve, reject) => {
        server.once("error", reject);
        server.listen(chosen, host, () => (server.off("error", reject), resolve()));
      });
      return;
    } catch (err) {
      if (port !== undefined || attempt >= 5 || (err as NodeJS.ErrnoException).code !== "EADDRINUSE") throw err;
    }
  }
}

/**
 * A real HTTP(S) webhook receiver on 127.0.0.1 for tests and benchmarks. `port` reuses a port
 * (a receiver that comes back after being down); `tls` serves https with the given key and cert;
 * `host` listens on another address of this host, named in the URL as the services know it
 * (containers: see Target.receiverHost).
 */
export async function startReceiver(
  opts: { port?: number; tls?: { key: string; cert: string }; answer?: Answer; host?: ReceiverHost } = {},
): Promise<Receiver> {
  const received: Received[] = [];
  const sockets = new Set<import("node:net").Socket>();
  const handler = (req: import("node:http").IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const text = Buffer.concat(chunks).toString("utf8");
      let update: unknown;
      try {
        update = JSON.parse(text);
      } catch {
        update = text;
      }
      const r: Received = { headers: req.headers, update, at: Date.now(), remotePort: req.socket.remotePort ?? 0 };
      received.push(r);
      const a = receiver.answer(r, received.length) ?? {};
      const send = () => {
        res.writeHead(a.status ?? 200, { "content-type": "application/json", ...a.headers });
        res.end(a.body ?? "");
        r.doneAt = Date.now();
      };
      if (a.delayMs) setTimeout(send, a.delayMs);
      else send();
    });
  };
  const server: Server = opts.tls
    ? createHttps({ key: opts.tls.key, cert: opts.tls.cert }, handler)
    : createHttp(handler);
  server.keepAliveTimeout = 60_000;
  server.on("connection", (s) => {
    sockets.add(s);
    s.on("close", () => sockets.delete(s));
  });
  await listen(server, opts.port, opts.host?.bind ?? "127.0.0.1");
  const port = (server.address() as { port: number }).port;
  const receiver: Receiver = {
    url: `${opts.tls ? "https" : "http"}://${opts.host?.name ?? "127.0.0.1"}:${port}/hook`,
    port,
    received,
    answer: opts.answer ?? (() => undefined),
    async waitFor(predicate, timeoutMs = 20_000) {
      const until = Date.now() + timeoutMs;
      while (!predicate(received)) {
        if (Date.now() > until)
          throw new Error(`receiver: condition not met in ${timeoutMs} ms (${received.length} received)`);
        await new Promise((r) => setTimeout(r, 10));
      }
    },
    close() {
      for (const s of sockets) s.destroy();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
  return receiver;
}
