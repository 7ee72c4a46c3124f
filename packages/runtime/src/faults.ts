import type { Redis } from "ioredis";
import { BotApiError, Errors, findMethod, keys, type Fault, type FaultBody } from "@starpost/shared";
import { invalidationsSent } from "./bot-registry.ts";
import { runtimeScripts } from "./lua/index.ts";

/**
 * Scripted faults: the platform API makes a bot's next `times` calls of a method (or of any, "*")
 * fail with an error in the exact Bot API envelope, or wait `delay_ms` first. Stored per bot;
 * the gateway takes them (one Lua step each) before it forwards a call.
 */

/** The reference's text for an error code when the fault gives none. */
const DEFAULT_ERRORS: Record<number, (retryAfter: number) => BotApiError> = {
  400: () => Errors.chatNotFound(),
  401: () => Errors.unauthorized(),
  403: () => Errors.botBlocked(),
  404: () => Errors.notFound(),
  409: () => Errors.conflictOtherGetUpdates(),
  429: (retryAfter) => Errors.tooManyRequests(retryAfter),
  500: () => Errors.internal(),
  502: () => Errors.serviceUnavailable(),
};

/** The error a fault answers with, or undefined for a delay-only fault. */
export function faultError(f: Fault): BotApiError | undefined {
  if (f.error_code === undefined) return undefined;
  const retryAfter = f.error_code === 429 ? (f.retry_after ?? 1) : undefined;
  if (f.description === undefined) return DEFAULT_ERRORS[f.error_code]!(retryAfter ?? 1);
  return Errors.injected(f.error_code, f.description, retryAfter);
}

export type AddFaultOutcome =
  | { outcome: "added"; id: number }
  | { outcome: "fault_method_unknown"; method: string }
  | { outcome: "fault_description_required"; error_code: number }
  | { outcome: "too_many_faults"; max: number }
  | { outcome: "bot_not_found" };

/** Faults a bot may hold at once: the faults hash is bounded (DELETE …/faults clears it). */
export const MAX_FAULTS = 100;

export async function addFault(redis: Redis, botId: string, body: FaultBody): Promise<AddFaultOutcome> {
  const method = body.method === "*" || body.duplicate ? body.method : findMethod(body.method);
  if (!method) return { outcome: "fault_method_unknown", method: body.method };
  if (body.error_code !== undefined && body.description === undefined && !DEFAULT_ERRORS[body.error_code]) {
    return { outcome: "fault_description_required", error_code: body.error_code };
  }
  const rule: Omit<Fault, "id"> = { method, times: body.times ?? 1 };
  for (const k of ["duplicate", "error_code", "description", "retry_after", "delay_ms"] as const)
    if (body[k] !== undefined) (rule as Record<string, unknown>)[k] = body[k];
  const id = await runtimeScripts.addFault(
    redis,
    { bot: keys.bot(botId), faults: keys.faults(botId), faultSeq: keys.faultSeq(botId) },
    { rule: JSON.stringify(rule), max: String(MAX_FAULTS) },
  );
  if (id === "missing") return { outcome: "bot_not_found" };
  if (id === "full") return { outcome: "too_many_faults", max: MAX_FAULTS };
  await invalidationsSent(redis);
  return { outcome: "added", id };
}

export async function listFaults(redis: Redis, botId: string): Promise<Fault[]> {
  const rows = await redis.hvals(keys.faults(botId));
  return rows.map((r) => JSON.parse(r) as Fault).sort((a, b) => a.id - b.id);
}

export async function clearFaults(redis: Redis, botId: string): Promise<void> {
  await redis.multi().del(keys.faults(botId)).hdel(keys.bot(botId), "faults").exec();
  await invalidationsSent(redis);
}

/** Takes the fault that applies to this call, if any (counting it as used). */
export async function takeFault(redis: Redis, botId: string, method: string): Promise<Fault | undefined> {
  return runtimeScripts.takeFault(redis, { bot: keys.bot(botId), faults: keys.faults(botId) }, { method });
}
