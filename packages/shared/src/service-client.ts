import { join } from "node:path";
import { Client, Pool } from "undici";
import type { ServiceName } from "./methods.ts";

/**
 * Keep-alive HTTP pools from the gateway (and the webhook worker) to the services that own
 * methods. A call is `POST /internal/call/<method>` with `{botId, params}`; the answer is the Bot
 * API envelope with its status, passed back unchanged. A held call (a long poll, waiting up to
 * 50 s) goes instead as a stream of one HTTP/2 connection per service (cleartext, prior knowledge:
 * the services take both on the same port and socket), so waiting polls cost no connection each.
 */

export interface ServiceReply {
  status: number;
  headers: Record<string, string>;
  body: string;
}

export const INTERNAL_TOKEN_HEADER = "x-internal-token";

/** The Unix socket a service also listens on when INTERNAL_SOCKET_DIR is set. */
export const internalSocket = (dir: string, service: string) => join(dir, `${service}.sock`);

export class ServiceClient {
  private readonly pools: Record<string, Pool>;
  private readonly held: Record<string, Client>;

  constructor(
    urls: Partial<Record<Exclude<ServiceName, "gateway">, string>>,
    private readonly internalToken: string,
    /** INTERNAL_SOCKET_DIR: call each service on its Unix socket there rather than its URL. */
    socketDir = "",
  ) {
    const origin = (url: string) => (socketDir ? "http://localhost" : url);
    const socket = (name: string) => (socketDir ? { socketPath: internalSocket(socketDir, name) } : {});
    const entries = Object.entries(urls);
    this.pools = Object.fromEntries(
      entries.map(([name, url]) => [
        name,
        new Pool(origin(url), { connections: null, pipelining: 1, keepAliveTimeout: 60_000, ...socket(name) }),
      ]),
    );
    this.held = Object.fromEntries(
      entries.map(([name, url]) => [
        name,
        // A long poll waits up to 50 s: no body timeout; streams are not capped below the server's.
        new Client(origin(url), {
          allowH2: true,
          ...({ useH2c: true } as object), // undici 7 reads it; its types do not list it yet
          maxConcurrentStreams: 1_000_000,
          pipelining: 1_000_000,
          keepAliveTimeout: 60_000,
          headersTimeout: 120_000,
          bodyTimeout: 120_000,
          ...socket(name),
        }),
      ]),
    );
  }

  /** Runs a Bot API method in its owning service; a call with a `signal` is a held one (a long poll). */
  call(
    service: Exclude<ServiceName, "gateway">,
    method: string,
    botId: string,
    params: Record<string, unknown>,
    signal?: AbortSignal,
  ) {
    const body = JSON.stringify({ botId, params });
    return this.send(service, "POST", `/internal/call/${method}`, body, signal, signal ? this.held : this.pools);
  }

  /** Forwards a platform API request (path below /platform/v1) to a service. */
  platform(
    service: Exclude<ServiceName, "gateway">,
    method: string,
    path: string,
    body: string | undefined,
    signal?: AbortSignal,
  ) {
    return this.send(service, method, `/internal/platform${path}`, body, signal);
  }

  private async send(
    service: string,
    method: string,
    path: string,
    body: string | undefined,
    signal?: AbortSignal,
    via: Record<string, Pool | Client> = this.pools,
  ): Promise<ServiceReply> {
    const pool = via[service];
    if (!pool) throw new Error(`no URL configured for service ${service}`);
    const headers: Record<string, string> = { [INTERNAL_TOKEN_HEADER]: this.internalToken };
    if (body !== undefined) headers["content-type"] = "application/json";
    // "idempotent" lets HTTP/2 run a POST beside others on its connection (undici holds it back otherwise).
    const idempotent = via === this.held;
    const res = await pool.request({ method: method as "POST", path, body, headers, signal, idempotent });
    const text = await res.body.text();
    const out: Record<string, string> = {};
    const retryAfter = res.headers["retry-after"];
    if (typeof retryAfter === "string") out["retry-after"] = retryAfter;
    return { status: res.statusCode, headers: out, body: text };
  }

  async ping(service: Exclude<ServiceName, "gateway">): Promise<boolean> {
    try {
      const res = await this.send(service, "GET", "/readyz", undefined, AbortSignal.timeout(2000));
      return res.status === 200;
    } catch {
      return false;
    }
  }

  async close(): Promise<void> {
    await Promise.all([...Object.values(this.pools), ...Object.values(this.held)].map((p) => p.close()));
  }
}
