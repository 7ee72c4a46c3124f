import type { BotApiError } from "./errors.ts";

/** The Bot API success envelope; `description` appears on a few results (setWebhook). */
export function okEnvelope(result: unknown, description?: string) {
  return description === undefined ? { ok: true as const, result } : { ok: true as const, result, description };
}

/** HTTP status, headers and body of a failed call, exactly as the official server sends them. */
export function errorReply(err: BotApiError) {
  const headers: Record<string, string> = {};
  if (err.parameters?.retry_after !== undefined) headers["retry-after"] = String(err.parameters.retry_after);
  return { status: err.error_code, headers, body: err.toJSON() };
}

/** A result that is already JSON text (stored Update JSON): sent as is, never parsed and re-serialized. */
export class RawJson {
  constructor(readonly json: string) {}
}

/** The success envelope as text around a raw JSON result. */
export function rawOkEnvelope(result: RawJson, description?: string): string {
  const tail = description === undefined ? "}" : `,"description":${JSON.stringify(description)}}`;
  return `{"ok":true,"result":${result.json}${tail}`;
}
