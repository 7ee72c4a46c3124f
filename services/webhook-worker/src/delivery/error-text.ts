import { STATUS_CODES } from "node:http";
import { WebhookTargetError } from "./target-guard.ts";

/** `last_error_message` for an answer that is not a 2xx, e.g. "Wrong response from the webhook: 502 Bad Gateway". */
export function wrongResponseText(status: number): string {
  return `Wrong response from the webhook: ${status} ${STATUS_CODES[status] ?? "Unknown"}`;
}

/** `last_error_message` for an answer that took longer than the whole-attempt deadline (the reference's read timeout). */
export const READ_TIMEOUT_TEXT = "Read timeout expired";

/** Why a 2xx answer's body was not read to its end (its `method`, if any, is not run). */
export type ReplyIgnored = "too_long" | "memory";

/**
 * `last_error_message` for a delivered update whose 2xx answer was ignored: longer than the
 * per-answer cap, or arriving while the process's answer budget was spent by other answers.
 */
export function replyIgnoredText(why: ReplyIgnored, maxBytes: number): string {
  return why === "too_long"
    ? `Webhook answer ignored: longer than ${maxBytes} bytes`
    : "Webhook answer ignored: too many long answers at once";
}

const TLS_CODE = /CERT|ERR_TLS|ERR_SSL|SELF_SIGNED|UNABLE_TO_/;

/**
 * `last_error_message` for a delivery that got no answer, in the official server's words where it
 * has them ("Connection refused", "Connection timed out", "Read timeout expired") and a clear
 * "SSL error: certificate verify failed: ..." for certificate problems.
 */
export function failureText(err: unknown): {
  text: string;
  kind: "connect" | "timeout" | "tls" | "guard" | "closed" | "other";
} {
  for (
    let e = err as (Error & { code?: string; cause?: unknown }) | undefined, depth = 0;
    e && depth < 5;
    e = e.cause as typeof e, depth++
  ) {
    if (e instanceof WebhookTargetError) return { text: e.message, kind: "guard" };
    const code = e.code ?? "";
    if (code === "ECONNREFUSED") return { text: "Connection refused", kind: "connect" };
    if (code === "ETIMEDOUT" || code === "UND_ERR_CONNECT_TIMEOUT")
      return { text: "Connection timed out", kind: "timeout" };
    if (code === "UND_ERR_HEADERS_TIMEOUT" || code === "UND_ERR_BODY_TIMEOUT")
      return { text: READ_TIMEOUT_TEXT, kind: "timeout" };
    if (code === "ENOTFOUND" || code === "EAI_AGAIN")
      return { text: "Failed to resolve host: Name or service not known", kind: "connect" };
    if (code === "EHOSTUNREACH") return { text: "No route to host", kind: "connect" };
    if (code === "ENETUNREACH") return { text: "Network is unreachable", kind: "connect" };
    if (code === "ECONNRESET" || code === "EPIPE") return { text: "Connection reset by peer", kind: "closed" };
    if (TLS_CODE.test(code) || /certificate/i.test(e.message ?? "")) {
      return { text: `SSL error: certificate verify failed: ${e.message}`, kind: "tls" };
    }
    if (code === "UND_ERR_SOCKET") return { text: "Webhook connection closed", kind: "closed" };
  }
  return { text: (err as Error)?.message || "Webhook request failed", kind: "other" };
}
