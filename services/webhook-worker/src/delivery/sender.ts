import { isIP } from "node:net";
import {
  emptyParams,
  ok,
  parseWebhookUrl,
  readFormParams,
  readJsonParams,
  urlHost,
  type Outcome,
  type RawParams,
} from "@starpost/shared";
import { Agent, Pool } from "@starpost/http";
import { parseRetryAfter } from "./backoff.ts";
import { failureText, wrongResponseText } from "./error-text.ts";
import { WebhookTargetError, type TargetGuard } from "./target-guard.ts";

export interface SenderOptions {
  /** refuses reserved addresses unless private networks are allowed. */
  allowPrivateNetworks: boolean;
  /** also send the secret in X-Telegram-Bot-Api-Secret-Token (unmodified client libraries). */
  telegramHeaderAlias: boolean;
  /** PEM bundle https targets are verified against; undefined: Node's bundled roots. */
  ca?: string;
  timeoutMs: number;
}

export interface Target {
  url: string;
  secretToken: string;
}

/** A delivery's result: the 2xx status and the reply's parameters, or why it failed. */
export type DeliveryResult = Outcome<
  { status: number; reply?: RawParams },
  { outcome: "failed"; error: string; kind: string; retryAfter: number; status?: number; aborted?: boolean }
>;

/** Bodies of 2xx answers are read (for a `method` to run) up to this size. */
const MAX_REPLY_BYTES = 1024 * 1024;

/**
 * A 2xx answer's body as parameters, read like a Bot API request body (shared raw readers: JSON
 * values keep their exact text, so ids keep every digit). Anything else carries no method.
 */
function parseReply(type: string | undefined, text: string): RawParams | undefined {
  if (text === "") return undefined;
  const t = (type ?? "").toLowerCase();
  const params = emptyParams();
  if (t.includes("application/x-www-form-urlencoded")) readFormParams(params, Buffer.from(text));
  else readJsonParams(params, text);
  return params;
}

/**
 * Sends one update to a webhook: one POST, JSON body, the secret header(s). Connections are kept
 * alive per origin; each new one re-resolves the host through the SSRF guard and, for https,
 * verifies the certificate against the configured CA bundle.
 */
export class WebhookSender {
  private readonly agent: Agent;
  private readonly targets = new Map<
    string,
    { origin: string; path: string; auth?: string; host: string; port: number }
  >();

  constructor(
    private readonly opts: SenderOptions,
    private readonly guard: TargetGuard,
  ) {
    const connect = { ca: opts.ca, timeout: Math.min(opts.timeoutMs, 10_000) };
    this.agent = new Agent({
      // One pool per origin, whose connections resolve their host through the guard with the
      // origin's port (a lookup alone is not told the port).
      factory: (origin, options) => {
        const url = new URL(String(origin));
        const port = Number(url.port) || (url.protocol === "https:" ? 443 : 80);
        return new Pool(origin, { ...options, connect: { ...connect, lookup: guard.lookup(port) } });
      },
      headersTimeout: opts.timeoutMs,
      bodyTimeout: opts.timeoutMs,
      keepAliveTimeout: 30_000,
      pipelining: 1,
    });
  }

  private target(url: string) {
    let t = this.targets.get(url);
    if (!t) {
      const u = parseWebhookUrl(url);
      if (!u) throw new WebhookTargetError("Invalid webhook URL", "WEBHOOK_UNRESOLVED");
      const auth =
        u.username || u.password
          ? `Basic ${Buffer.from(`${decodeURIComponent(u.username)}:${decodeURIComponent(u.password)}`).toString("base64")}`
          : undefined;
      const port = Number(u.port) || (u.protocol === "https:" ? 443 : 80);
      t = { origin: u.origin, path: `${u.pathname}${u.search}`, auth, host: urlHost(u), port };
      if (this.targets.size > 10_000) this.targets.clear();
      this.targets.set(url, t);
    }
    return t;
  }

  async deliver(target: Target, body: string, signal?: AbortSignal): Promise<DeliveryResult> {
    try {
      const t = this.target(target.url);
      // A literal address is dialled without a lookup, so the guard checks it here.
      if (isIP(t.host)) await this.guard.resolve(t.host, t.port);
      const headers: Record<string, string> = { "content-type": "application/json" };
      if (target.secretToken) {
        headers["x-platform-bot-api-secret-token"] = target.secretToken;
        if (this.opts.telegramHeaderAlias) headers["x-telegram-bot-api-secret-token"] = target.secretToken;
      }
      if (t.auth) headers.authorization = t.auth;
      const res = await this.agent.request({ origin: t.origin, path: t.path, method: "POST", headers, body, signal });
      if (res.statusCode >= 200 && res.statusCode <= 299) {
        const length = Number(res.headers["content-length"] ?? 0);
        if (length > MAX_REPLY_BYTES) {
          await res.body.dump();
          return ok({ status: res.statusCode });
        }
        const text = await res.body.text();
        const type = res.headers["content-type"];
        return ok({ status: res.statusCode, reply: parseReply(Array.isArray(type) ? type[0] : type, text) });
      }
      await res.body.dump();
      return {
        outcome: "failed",
        error: wrongResponseText(res.statusCode),
        kind: "http",
        status: res.statusCode,
        retryAfter: parseRetryAfter(res.headers["retry-after"]),
      };
    } catch (err) {
      if (signal?.aborted)
        return { outcome: "failed", error: "Request aborted", kind: "aborted", retryAfter: 0, aborted: true };
      const { text, kind } = failureText(err);
      return { outcome: "failed", error: text, kind, retryAfter: 0 };
    }
  }

  close(): Promise<void> {
    return this.agent.close();
  }
}
