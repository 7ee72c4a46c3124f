import type { z } from "zod";
import { Errors, type BotApiError } from "../errors.ts";
import { failed, ok, type Failed, type Ok } from "../outcome.ts";
import { errorOf } from "./issues.ts";

export type ParseOutcome<T> = Ok<T> | Failed;

/**
 * Validates parameters (a method's, a platform API body) with a schema. A schema names its errors
 * as issues.ts says; any other zod issue becomes `parameter "<name>" is required` (missing) or
 * `parameter "<name>" is invalid`.
 */
export function parseWith<T>(schema: z.ZodType<T>, raw: unknown): ParseOutcome<T> {
  const parsed = schema.safeParse(raw);
  if (parsed.success) return ok(parsed.data);
  const fields = typeof raw === "object" && raw !== null ? (raw as Record<string, unknown>) : {};
  return failed(issueToError(schema, parsed.error.issues[0]!, fields));
}

function issueToError(schema: z.ZodType, issue: z.core.$ZodIssue, raw: Record<string, unknown>): BotApiError {
  const named = errorOf(schema, issue);
  if (named) return named;
  const name = String(issue.path[0] ?? "parameters");
  if (raw[name] === undefined || raw[name] === "") return Errors.paramRequired(name);
  return Errors.paramInvalid(name);
}
