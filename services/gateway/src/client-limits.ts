import { readFileSync } from "node:fs";
import type { Socket } from "node:net";
import { pipeline, Transform, type Readable } from "node:stream";
import type { FastifyInstance, FastifyRequest, FastifyServerOptions } from "fastify";
import { Errors, type GatewayLimits } from "@starpost/shared";
import type { Registry } from "@starpost/runtime";

/**
 * Node's HTTP server settings for the gateway's limits. A request must arrive whole within
 * GATEWAY_REQUEST_TIMEOUT_MS however slowly it trickles (Node counts from its first byte, not from
 * the last one, as nginx's client_body_timeout would) and its headers within
 * GATEWAY_HEADERS_TIMEOUT_MS (a connection that sends nothing is cut then too); only receiving the
 * request counts, so a long poll's answer may take its 50 s. Node looks for expired requests every
 * connectionsCheckingInterval: a second, or less under a shorter timeout (tests), so a request is
 * cut at most that long after its time is up.
 */
export function serverTimeouts(limits: GatewayLimits) {
  const requestTimeout = limits.GATEWAY_REQUEST_TIMEOUT_MS;
  // Node refuses a headers timeout longer than the request's.
  const headersTimeout = Math.min(limits.GATEWAY_HEADERS_TIMEOUT_MS, requestTimeout);
  return {
    keepAliveTimeout: limits.GATEWAY_KEEP_ALIVE_TIMEOUT_MS,
    requestTimeout,
    http: {
      headersTimeout,
      requestTimeout,
      connectionsCheckingInterval: Math.min(1_000, Math.ceil(headersTimeout / 4)),
    },
  } satisfies FastifyServerOptions & { http: object };
}

/** The process's soft open-file limit (Linux), or undefined where it cannot be read. */
function openFileLimit(): number | undefined {
  try {
    const line = /^Max open files\s+(\d+)/m.exec(readFileSync("/proc/self/limits", "utf8"));
    return line ? Number(line[1]) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * GATEWAY_MAX_CONNECTIONS_PER_ADDRESS, or when unset 60 % of the open-file limit (4,096 where it
 * cannot be read): one address (a bench's 10,000 long polls at the usual 20,000) may hold most of
 * the descriptors, never all of them.
 */
function gatewayConnectionBound(limits: GatewayLimits): number {
  if (limits.GATEWAY_MAX_CONNECTIONS_PER_ADDRESS !== undefined) return limits.GATEWAY_MAX_CONNECTIONS_PER_ADDRESS;
  const files = openFileLimit();
  return files === undefined ? 4_096 : Math.max(64, Math.floor(files * 0.6));
}

/** `::ffff:1.2.3.4` is 1.2.3.4: a dual-stack listener sees IPv4 clients that way. */
const addressOf = (socket: Socket) => {
  const address = socket.remoteAddress ?? "";
  return address.startsWith("::ffff:") ? address.slice(7) : address;
};

/**
 * Bounds the connections one client address holds open (GATEWAY_MAX_CONNECTIONS_PER_ADDRESS): one
 * beyond it is closed at once, before any byte is read, so a single host cannot take the
 * descriptors every other client needs. Counts what is cut: connections refused here, and
 * requests Node cut for arriving too slowly (see serverTimeouts).
 */
export function registerClientLimits(app: FastifyInstance, limits: GatewayLimits, registry: Registry) {
  const slowCut = registry.counter(
    "starpost_gateway_slow_clients_cut_total",
    "Requests cut because their headers or body did not arrive within GATEWAY_HEADERS_TIMEOUT_MS / GATEWAY_REQUEST_TIMEOUT_MS",
  );
  const refused = registry.counter(
    "starpost_gateway_connections_refused_total",
    "Connections closed on arrival: their address already held GATEWAY_MAX_CONNECTIONS_PER_ADDRESS",
  );
  app.server.on("clientError", (err: Error & { code?: string }) => {
    if (err.code === "ERR_HTTP_REQUEST_TIMEOUT") slowCut.inc();
  });

  const max = gatewayConnectionBound(limits);
  if (max === 0) return;
  const open = new Map<string, number>();
  app.server.on("connection", (socket: Socket) => {
    const address = addressOf(socket);
    const count = open.get(address) ?? 0;
    if (count >= max) {
      refused.inc();
      socket.destroy();
      return;
    }
    open.set(address, count + 1);
    socket.once("close", () => {
      const left = open.get(address)! - 1;
      if (left === 0) open.delete(address);
      else open.set(address, left);
    });
  });
}

/** How far ahead of its pace a bot may read: its first second's bytes come at once. */
const READ_BURST_MS = 1_000;

/**
 * One bot's share of the gateway's reading (GATEWAY_BOT_READ_BYTES_PER_S): the bodies of each
 * token's calls are read at most at that pace, in bursts of a second. The key is the whole token
 * the path names (checked later), so a caller slows only the token it holds, never a bot whose
 * id it merely names. A body of known length is paid for before it is read, and its reading
 * starts when due; one that would wait past `maxWaitMs` is refused at once with 429 and
 * retry_after, nothing read or paid; a chunked body pays chunk by chunk. A token sending faster
 * is thus read later, TCP holds its bytes back in its own client, and the gateway's thread stays
 * with the other bots. One clock per token that read in the last second (older ones are dropped).
 */
export function registerReadShare(app: FastifyInstance, bytesPerSecond: number, bodyLimit: number, maxWaitMs: number) {
  if (bytesPerSecond === 0) return;
  /** per token: when its bytes read so far will have been paid for (performance.now() ms). */
  const paidUntil = new Map<string, number>();
  let sweptAt = performance.now();
  /** How long `bytes` more of the token's must wait; paid only when `pay`. */
  const due = (token: string, bytes: number, pay: boolean) => {
    const now = performance.now();
    if (now - sweptAt > READ_BURST_MS) {
      for (const [t, until] of paidUntil) if (until < now - READ_BURST_MS) paidUntil.delete(t);
      sweptAt = now;
    }
    const until = Math.max(paidUntil.get(token) ?? 0, now - READ_BURST_MS) + (bytes * 1000) / bytesPerSecond;
    if (pay) paidUntil.set(token, until);
    return until - now;
  };
  app.addHook("preParsing", (req, _reply, payload, done) => {
    const token = /^\/bot([^/?]*)/.exec(req.url)?.[1];
    const length = Number(req.headers["content-length"] ?? 0);
    const chunked = req.headers["transfer-encoding"] !== undefined;
    // A body over the limit is refused unread (413) at once.
    if (token === undefined || (!chunked && !(length > 0 && length <= bodyLimit))) return done(null, payload);
    if (!chunked) {
      const ms = due(token, length, false);
      if (ms <= 0) return (due(token, length, true), done(null, payload));
      if (ms > maxWaitMs) return done(Errors.tooManyRequests(Math.ceil(ms / 1000)));
      due(token, length, true);
      const timer = setTimeout(() => done(null, payload), ms);
      req.raw.once("close", () => clearTimeout(timer));
      return;
    }
    const paced = new Transform({
      transform(chunk: Buffer, _encoding, next) {
        const ms = due(token, chunk.length, true);
        if (ms <= 0) next(null, chunk);
        else setTimeout(() => next(null, chunk), ms);
      },
    });
    const body = pipeline(payload, paced, () => undefined);
    // fastify reads no GET body: readBody does, from the paced stream.
    if (req.method === "GET" || req.method === "HEAD") pacedBodies.set(req.raw, body);
    done(null, body);
  });
}

const pacedBodies = new WeakMap<FastifyRequest["raw"], Readable>();

/** The request's body as the gateway reads it: paced by registerReadShare, or as it arrives. */
export const bodyStream = (req: FastifyRequest): Readable => pacedBodies.get(req.raw) ?? req.raw;
