import { join } from "node:path";
import { Pool, type Dispatcher } from "undici";
import type { BotRecord } from "./bot-registry.ts";
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

export const INTERNAL_TOKEN_HEADER = "x-internal-token";

/** The Unix socket a service also listens on when INTERNAL_SOCKET_DIR is set. */
export const internalSocket = (dir: string, service: string) => join(dir, `${service}.sock`);

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

  /**
   * One request on the service's pool through undici's `dispatch`, its answer gathered as bytes:
   * `request()` would wrap each answer in a body stream and an async resource, measurable on the
   * hot path. An abort of `signal` fails the request with the signal's reason, as `request()` does.
   */
  private send(
    service: string,
    method: string,
    path: string,
    body: string | undefined,
    signal?: AbortSignal,
  ): Promise<ServiceReply> {
    const pool = this.pools[service];
    if (!pool) return Promise.reject(new Error(`no URL configured for service ${service}`));
    if (signal?.aborted) return Promise.reject(signal.reason);
    const headers: Record<string, string> = { [INTERNAL_TOKEN_HEADER]: this.internalToken };
    if (body !== undefined) headers["content-type"] = "application/json";
    return new Promise<ServiceReply>((resolve, reject) => {
      let status = 0;
      let retryAfter: string | undefined;
      const chunks: Buffer[] = [];
      let controller: Dispatcher.DispatchController | undefined;
      const onAbort = () => controller?.abort(signal!.reason);
      signal?.addEventListener("abort", onAbort, { once: true });
      const done = () => signal?.removeEventListener("abort", onAbort);
      pool.dispatch(
        { method: method as Dispatcher.HttpMethod, path, body, headers },
        {
          onRequestStart(c) {
            controller = c;
            if (signal?.aborted) c.abort(signal.reason);
          },
          onResponseStart(_c, statusCode, resHeaders) {
            status = statusCode;
            const r = resHeaders["retry-after"];
            retryAfter = typeof r === "string" ? r : undefined;
          },
          onResponseData(_c, chunk) {
            chunks.push(chunk);
          },
          onResponseEnd() {
            done();
            const out: Record<string, string> = {};
            if (retryAfter !== undefined) out["retry-after"] = retryAfter;
            const text = chunks.length === 1 ? chunks[0]!.toString("utf8") : Buffer.concat(chunks).toString("utf8");
            resolve({ status, headers: out, body: text });
          },
          onResponseError(_c, err) {
            done();
            reject(err);
          },
        },
      );
    });
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
