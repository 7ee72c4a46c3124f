import type { z } from "zod";
import { BotApiError, Errors } from "../errors.ts";
import { METHODS, type MethodName, type ParamsOf } from "../methods.ts";

export type ParseOutcome<T> = { ok: true; params: T } | { ok: false; error: BotApiError };

/**
 * Validates a call's parameters with its schema from the method table. Schemas carry the full
 * Bot API description as the issue message ("Bad Request: ..."); a bare zod message becomes
 * `parameter "<name>" is required` (missing) or `parameter "<name>" is invalid`.
 */
export function parseParams<M extends MethodName>(method: M, raw: Record<string, unknown>): ParseOutcome<ParamsOf<M>> {
  return parseWith(METHODS[method].params as unknown as z.ZodType<ParamsOf<M>>, raw);
}

/** Validates any parameter object (a platform API body, say) the same way. */
export function parseWith<T>(schema: z.ZodType<T>, raw: unknown): ParseOutcome<T> {
  const parsed = schema.safeParse(raw);
  if (parsed.success) return { ok: true, params: parsed.data };
  const fields = typeof raw === "object" && raw !== null ? (raw as Record<string, unknown>) : {};
  return { ok: false, error: issueToError(parsed.error.issues[0]!, fields) };
}

export function issueToError(issue: z.core.$ZodIssue, raw: Record<string, unknown>): BotApiError {
  if (issue.message.startsWith("Bad Request: ")) {
    return new BotApiError({ error_code: 400, description: issue.message });
  }
  const name = String(issue.path[0] ?? "parameters");
  if (raw[name] === undefined || raw[name] === "") return Errors.paramRequired(name);
  return Errors.paramInvalid(name, "is invalid");
}
