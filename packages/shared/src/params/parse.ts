import type { z } from "zod";
import { Errors, type BotApiError } from "../errors.ts";
import { METHODS, type MethodName, type ParamsOf } from "../methods.ts";
import { errorOf } from "./issues.ts";

export type ParseOutcome<T> = { ok: true; params: T } | { ok: false; error: BotApiError };

/**
 * Validates a call's parameters with its schema from the method table. A schema names its errors
 * as issues.ts says; any other zod issue becomes
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
  return { ok: false, error: issueToError(schema, parsed.error.issues[0]!, fields) };
}

function issueToError(schema: z.ZodType, issue: z.core.$ZodIssue, raw: Record<string, unknown>): BotApiError {
  const named = errorOf(schema, issue);
  if (named) return named;
  const name = String(issue.path[0] ?? "parameters");
  if (raw[name] === undefined || raw[name] === "") return Errors.paramRequired(name);
  return Errors.paramInvalid(name);
}
