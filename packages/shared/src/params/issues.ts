import { z } from "zod";
import type { BotApiError } from "../errors.ts";

/**
 * How a schema names the registry error its failure answers with, read back in one place
 * (`errorOf`, used by parse.ts); nothing travels in an issue's message text. Two ways:
 * - a check that runs in a transform or refinement fails with `fail(ctx, Errors.x())`: a custom
 *   issue whose params carry the error;
 * - a body schema lists, by field name (`answering`), the error a failed field answers with. The
 *   schema itself stays plain zod, so the platform API's OpenAPI description is still made from it.
 */

export interface ErrorIssueParams {
  botApiError: BotApiError;
}

/** Fails a transform or refinement with a registry error, the only issue the route answers. */
export function fail(ctx: z.RefinementCtx, err: BotApiError): never {
  const params: ErrorIssueParams = { botApiError: err };
  ctx.addIssue({ code: "custom", params });
  return z.NEVER;
}

/** The error a failed field answers; undefined leaves the issue to the generic parameter errors. */
export type FieldError = (issue: z.core.$ZodIssue) => BotApiError | undefined;

const fieldErrors = new WeakMap<z.ZodType, Record<string, FieldError | undefined>>();

/** `schema`, whose failures at each listed field answer that field's registry error. */
export function answering<S extends z.ZodObject>(schema: S, errors: { [K in keyof S["shape"]]?: FieldError }): S {
  fieldErrors.set(schema, errors);
  return schema;
}

/** The registry error an issue of `schema` names, if it names one. */
export function errorOf(schema: z.ZodType, issue: z.core.$ZodIssue): BotApiError | undefined {
  if (issue.code === "custom") {
    const carried = (issue.params as Partial<ErrorIssueParams> | undefined)?.botApiError;
    if (carried) return carried;
  }
  const field = issue.path[0];
  return typeof field === "string" ? fieldErrors.get(schema)?.[field]?.(issue) : undefined;
}
