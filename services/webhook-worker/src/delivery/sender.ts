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
import type { Dispatcher } from "undici";
import { parseRetryAfter } from "./backoff.ts";
import {
  failureText,
  READ_TIMEOUT_TEXT,
  replyIgnoredText,
  wrongResponseText,
  type ReplyIgnored,
} from "./error-text.ts";
import { ReplyBudget } from "./reply-budget.ts";
import { WebhookTargetError, type TargetGuard } from "./target-guard.ts";

export interface SenderOptions {
  /** refuses reserved addresses unless private networks are allowed. */
  allowPrivateNetworks: boolean;
  /** also send the secret in X-Telegram-Bot-Api-Secret-Token (unmodified client libraries). */
  telegramHeaderAlias: boolean;
  /** PEM bundle https targets are verified against; undefined: Node's bundled roots. */
  ca?: string;
  /** the whole attempt's deadline: connect, headers and the whole body (the reference's read timeout). */
  timeoutMs: number;
  /** a 2xx answer longer than this is ignored, however it is framed (reading stops there). */
  replyMaxBytes: number;
  /** bytes of 2xx answers the process holds at once (see ReplyBudget). */
  replyBudgetBytes: number;
}

export interface Target {
  url: string;
  secretToken: string;
}

/**
 * A delivery's result: the 2xx status and the reply's parameters (or why its body was ignored:
 * the update is delivered all the same), or why it failed.
 */
export type DeliveryResult = Outcome<
  {
    status: number;
    reply?: RawParams;
    ignored?: { why: ReplyIgnored; error: string };
    /** with a reply: gives its bytes back to the process's budget (once its method call settled). */
    release?: () => void;
  },
  { outcome: "failed"; error: string; kind: string; retryAfter: number; status?: number; aborted?: boolean }
>;

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
  private readonly budget: ReplyBudget;
  private readonly targets = new Map<
    string,
    { origin: string; path: string; auth?: string; host: string; port: number }
  >();

  constructor(
    private readonly opts: SenderOptions,
    private readonly guard: TargetGuard,
  ) {
    this.budget = new ReplyBudget(opts.replyBudgetBytes);
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

  /**
   * One attempt, bounded as a whole by `timeoutMs` (undici's own timeouts restart with every
   * chunk, so a receiver trickling its body would hold the attempt for ever) and by `signal`
   * (the drain's: a webhook change or a shutdown).
   */
  async deliver(target: Target, body: string, signal?: AbortSignal): Promise<DeliveryResult> {
    // One controller of our own rather than AbortSignal.any: Node 20's any() keeps every signal
    // it combined alive as long as its sources live.
    const attempt = new AbortController();
    let expired = false;
    const deadline = setTimeout(() => {
      expired = true;
      attempt.abort();
    }, this.opts.timeoutMs);
    const onAbort = () => attempt.abort();
    if (signal?.aborted) attempt.abort();
    else signal?.addEventListener("abort", onAbort, { once: true });
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
      const res = await this.agent.request({
        origin: t.origin,
        path: t.path,
        method: "POST",
        headers,
        body,
        signal: attempt.signal,
      });
      if (res.statusCode >= 200 && res.statusCode <= 299) return ok(await this.readReply(res));
      // At most undici's dump limit (128 KiB) is read, and nothing is kept; a trickle ends at the deadline.
      await res.body.dump().catch(() => undefined);
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
      if (expired) return { outcome: "failed", error: READ_TIMEOUT_TEXT, kind: "timeout", retryAfter: 0 };
      const { text, kind } = failureText(err);
      return { outcome: "failed", error: text, kind, retryAfter: 0 };
    } finally {
      clearTimeout(deadline);
      signal?.removeEventListener("abort", onAbort);
    }
  }

  /**
   * A 2xx answer's body, read chunk by chunk up to `replyMaxBytes` and within the process's
   * budget, however it is framed (Content-Length, chunked, or until the connection closes).
   * Past either, reading stops and the body (so its connection) is destroyed. A reply keeps its
   * bytes in the budget until its `release` (its parameters live on while its method call runs).
   */
  private async readReply(res: Dispatcher.ResponseData) {
    const status = res.statusCode;
    const max = this.opts.replyMaxBytes;
    const ignore = (why: ReplyIgnored) => {
      res.body.destroy();
      return { status, ignored: { why, error: replyIgnoredText(why, max) } };
    };
    if (Number(res.headers["content-length"] ?? 0) > max) return ignore("too_long");
    const chunks: Buffer[] = [];
    let size = 0;
    let kept = false;
    try {
      for await (const chunk of res.body as AsyncIterable<Buffer>) {
        if (size + chunk.length > max) return ignore("too_long");
        if (!this.budget.take(chunk.length)) return ignore("memory");
        size += chunk.length;
        chunks.push(chunk);
      }
      const type = res.headers["content-type"];
      const text = Buffer.concat(chunks, size).toString("utf8");
      const reply = parseReply(Array.isArray(type) ? type[0] : type, text);
      if (!reply) return { status };
      kept = true;
      let released = false;
      const release = () => {
        if (!released) this.budget.give(size);
        released = true;
      };
      return { status, reply, release };
    } finally {
      if (!kept) this.budget.give(size);
    }
  }

  close(): Promise<void> {
    return this.agent.close();
  }
}
