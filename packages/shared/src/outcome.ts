import type { BotApiError } from "./errors.ts";

/**
 * Expected results of domain code: `{ outcome: "ok", result }` or a refusal named by a string
 * literal (plus the values its text shows). Domain code never builds a wire error: each service
 * keeps one map from its refusals to registry entries and applies it at its edge (method handlers
 * and platform routes) with `answerWith`.
 */
export type Ok<T> = { outcome: "ok"; result: T; description?: string };
export type Outcome<T, R extends { outcome: string }> = Ok<T> | R;

export const ok = <T>(result: T, description?: string): Ok<T> =>
  description === undefined ? { outcome: "ok", result } : { outcome: "ok", result, description };

/** An outcome the edge answers with a registry error (a refusal mapped, parameters refused). */
export type Failed = { outcome: "error"; error: BotApiError };
export const failed = (error: BotApiError): Failed => ({ outcome: "error", error });

/** What the edge sends: a result, or a registry error. */
export type Answer = Ok<unknown> | Failed;

/** A service's refusals: each name, with the registry error its text comes from. */
export type RefusalMap = Record<string, (refusal: never) => BotApiError>;

/** The refusal objects of a map: `{ outcome: name }` plus the values the entry reads. */
export type RefusalOf<M extends RefusalMap> = {
  [K in keyof M & string]: { outcome: K } & (Parameters<M[K]> extends [infer A] ? A : unknown);
}[keyof M & string];

/** The edge of a service: a domain outcome as the Bot API answer, through the service's map. */
export function answerWith<M extends RefusalMap>(refusals: M) {
  return (o: Outcome<unknown, RefusalOf<M>>): Answer => {
    if (o.outcome === "ok") return o as Ok<unknown>;
    const toError = refusals[o.outcome] as unknown as (r: RefusalOf<M>) => BotApiError;
    return failed(toError(o as RefusalOf<M>));
  };
}
