import type { Counter } from "prom-client";
import type { Registry } from "./metrics.ts";

/**
 * Writes Redis refuses for memory. starpost runs Redis with `maxmemory` and `noeviction`
 * (docs/operations.md): past the limit Redis answers every write that can grow memory with
 * "OOM command not allowed when used memory > 'maxmemory'" and keeps every key. A Lua step
 * (without shebang flags) is refused at its first such write and then has written nothing, so a
 * refused step applied nothing of the call; the call is answered `Errors.storageFull` and may be
 * sent again.
 */

/** Seconds a caller is told to wait after a refused write: long enough for an operator or a trim to free memory. */
export const STORAGE_FULL_RETRY_AFTER_S = 5;

/** True for Redis's refusal of a write at maxmemory (also as a script's error, which keeps the OOM prefix). */
export function isWriteRefused(err: unknown): boolean {
  return err instanceof Error && /^OOM command not allowed/.test(err.message);
}

/** Which write was refused: a call's own step (answered 503) or a best-effort write after it (the answer stands). */
export type RefusedWrite = "step" | "best_effort";

const counters = new WeakMap<Registry, Counter<"write">>();

/** The registry's `starpost_redis_writes_refused_total` counter, made once per registry. */
export function refusedWrites(registry: Registry): Counter<"write"> {
  let counter = counters.get(registry);
  if (!counter) {
    counter = registry.counter(
      "starpost_redis_writes_refused_total",
      'Redis writes refused for memory (maxmemory), by write: "step" (the call was answered 503 and nothing applied) or "best_effort" (a write after the answer, such as the request log)',
      ["write"],
    ) as Counter<"write">;
    counters.set(registry, counter);
  }
  return counter;
}

/** Counts `err` when it is a refusal for memory; true when it was. */
export function countIfRefused(registry: Registry, err: unknown, write: RefusedWrite): boolean {
  if (!isWriteRefused(err)) return false;
  refusedWrites(registry).inc({ write });
  return true;
}
