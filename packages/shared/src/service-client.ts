import { Pool } from "./undici.ts";
import type { BotRecord } from "./bot-registry.ts";
import { INTERNAL_TOKEN_HEADER, internalSocket } from "./internal-calls.ts";
import type { ServiceName } from "./methods.ts";

/**
 * Keep-alive HTTP pools from the gateway (and the webhook worker) to the services that own
 * methods. A call is `POST /internal/call/<method>` with `{bot, params}`, `bot` the authenticated
 * bot's public record (id, username, first_name), so no service reads it again; the answer is the
 * Bot API envelope with its status, passed back unchanged.
 */

export interface ServiceReply {
  status: number;
  headers: Record<string, string>;
  body: string;
}

export class ServiceClient {
  private readonly pools: Record<string, Pool>;

  constructor(
    urls: Partial<Record<Exclude<ServiceName, "gateway">, string>>,
    private readonly internalToken: string,
    /** INTERNAL_SOCKET_DIR: call each service on its Unix socket there rather than its URL. */
    socketDir = "",
  ) {
    this.pools = Object.fromEntries(
      Object.entries(urls).map(([name, url]) => [
        name,
        // Long polls hold a connection each for up to 50 s: no cap on connections, no body timeout.
        new Pool(socketDir ? "http://localhost" : url, {
          connections: null,
          pipelining: 1,
          keepAliveTimeout: 60_000,
          headersTimeout: 120_000,
          bodyTimeout: 120_000,
          ...(socketDir ? { socketPath: internalSocket(socketDir, name) } : {}),
        }),
      ]),
    );
  }

  /** Runs a Bot API method for an authenticated bot in its owning service. */
  call(
    service: Exclude<ServiceName, "gateway">,
    method: string,
    bot: BotRecord,
    params: Record<string, unknown>,
    signal?: AbortSignal,
  ) {
    // The three fields named, not the object: whatever else a caller's record holds stays here.
    const { id, username, first_name } = bot;
    const body = JSON.stringify({ bot: { id, username, first_name }, params });
    return this.send(service, "POST", `/internal/call/${method}`, body, signal);
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
  ): Promise<ServiceReply> {
    const pool = this.pools[service];
    if (!pool) throw new Error(`no URL configured for service ${service}`);
    const headers: Record<string, string> = { [INTERNAL_TOKEN_HEADER]: this.internalToken };
    if (body !== undefined) headers["content-type"] = "application/json";
    const res = await pool.request({ method: method as "POST", path, body, headers, signal });
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
    await Promise.all(Object.values(this.pools).map((p) => p.close()));
  }
}
