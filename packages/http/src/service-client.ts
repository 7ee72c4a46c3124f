import type { ServerResponse } from "node:http";
import type { Dispatcher } from "undici";
import { Pool } from "./undici.ts";
import { type ServiceName } from "@starpost/shared";
import { type BotRecord } from "@starpost/runtime";
import { INTERNAL_TOKEN_HEADER, internalSocket } from "./internal-calls.ts";

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
        // A held platform call (a history read, a payment or a press waiting for the bot's answer)
        // holds a connection while it waits: no cap on connections, generous timeouts.
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
  call(service: Exclude<ServiceName, "gateway">, method: string, bot: BotRecord, params: Record<string, unknown>) {
    // The three fields named, not the object: whatever else a caller's record holds stays here.
    const { id, username, first_name } = bot;
    const body = JSON.stringify({ bot: { id, username, first_name }, params });
    return this.send(service, "POST", `/internal/call/${method}`, body);
  }

  /**
   * Forwards a platform API request (path below /platform/v1) to a service; given up when the
   * caller leaves first (`caller`: the response to it closes before it was sent), which frees a
   * held history read or a payment waiting for its answer.
   */
  platform(
    service: Exclude<ServiceName, "gateway">,
    method: string,
    path: string,
    body: string | undefined,
    caller?: ServerResponse,
  ) {
    return this.send(service, method, `/internal/platform${path}`, body, caller);
  }

  /**
   * One request on the service's pool through undici's `dispatch`, its answer gathered as bytes:
   * `request()` would wrap each answer in a body stream and an async resource, measurable on the
   * hot path. It is given up when `until` aborts (failing with the signal's reason, as `request()`
   * does) or, for a caller's response, when that closes unsent (an AbortError, made only then: an
   * AbortController per call is measurable too).
   */
  private send(
    service: string,
    method: string,
    path: string,
    body: string | undefined,
    until?: AbortSignal | ServerResponse,
  ): Promise<ServiceReply> {
    const pool = this.pools[service];
    if (!pool) return Promise.reject(new Error(`no URL configured for service ${service}`));
    if (until && gone(until)) return Promise.reject(reasonOf(until));
    const headers: Record<string, string> = { [INTERNAL_TOKEN_HEADER]: this.internalToken };
    if (body !== undefined) headers["content-type"] = "application/json";
    return new Promise<ServiceReply>((resolve, reject) => {
      let status = 0;
      let retryAfter: string | undefined;
      const chunks: Buffer[] = [];
      let controller: Dispatcher.DispatchController | undefined;
      let reason: unknown;
      const giveUp = () => {
        if (until instanceof AbortSignal) reason = until.reason;
        else if (until!.writableFinished) return;
        else reason = abortError();
        controller?.abort(reason as Error);
      };
      if (until instanceof AbortSignal) until.addEventListener("abort", giveUp, { once: true });
      else until?.once("close", giveUp);
      const done = () => {
        if (until instanceof AbortSignal) until.removeEventListener("abort", giveUp);
        else until?.off("close", giveUp);
      };
      pool.dispatch(
        { method: method as Dispatcher.HttpMethod, path, body, headers },
        {
          onRequestStart(c) {
            controller = c;
            if (reason !== undefined) c.abort(reason as Error);
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

/** Whether the request is to be given up before it is sent: the signal aborted, or the caller left already. */
const gone = (until: AbortSignal | ServerResponse) =>
  until instanceof AbortSignal ? until.aborted : until.destroyed && !until.writableFinished;

const reasonOf = (until: AbortSignal | ServerResponse) => (until instanceof AbortSignal ? until.reason : abortError());

/** What an aborted fetch fails with (an AbortController's default reason). */
const abortError = () => new DOMException("This operation was aborted", "AbortError");
