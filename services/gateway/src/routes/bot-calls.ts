import { setTimeout as sleep } from "node:timers/promises";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { Redis } from "ioredis";
import { findMethod, type BotApiError } from "@starpost/shared";
import {
  countIfRefused,
  faultError,
  isStorageUnavailable,
  loggedParams,
  reportStorageUnavailable,
  RequestLogWriter,
  takeFault,
  type Logger,
  type Registry,
} from "@starpost/runtime";
import { sendError } from "@starpost/http";
import type { StepLog } from "../polling/poll-hub.ts";

/**
 * What the platform API shows and scripts about a bot's calls, kept out of the request path's
 * main line: the request log (every call, recorded after the answer went out) and scripted
 * faults (taken before the call is forwarded). Nothing here runs for a bot without faults but
 * the log write, which does not delay the answer.
 */
interface BotCall {
  botId: string;
  method: string;
  params: Record<string, unknown>;
  started: number;
  /** the step that answered the call wrote its request log entry (see StepLog). */
  logged?: boolean;
}

const calls = new WeakMap<FastifyRequest, BotCall>();

/** Marks a request as a bot's call of `method`, so its answer is logged. */
export function noteBotCall(req: FastifyRequest, call: Omit<BotCall, "started">) {
  calls.set(req, { ...call, started: performance.now() });
}

/**
 * Applies a scripted fault to this call: waits its delay, then answers its error. Returns true
 * when the fault answered the call (nothing is forwarded then).
 */
export async function applyFault(
  redis: Redis,
  req: FastifyRequest,
  reply: FastifyReply,
  signal: AbortSignal,
): Promise<boolean> {
  const call = calls.get(req);
  if (!call) return false;
  const fault = await takeFault(redis, call.botId, call.method);
  if (!fault) return false;
  if (fault.delay_ms) await sleep(fault.delay_ms, undefined, { signal }).catch(() => undefined);
  const error: BotApiError | undefined = faultError(fault);
  if (!error) return false;
  await sendError(reply, error);
  return true;
}

function entryOf(call: BotCall, status: number, error: { error_code?: number; description?: string }) {
  return {
    date: Math.floor(Date.now() / 1000),
    method: call.method,
    params: loggedParams(call.params),
    status,
    ok: status === 200,
    ...error,
    duration_ms: Math.round(performance.now() - call.started),
  };
}

/**
 * Records each bot call's outcome in the bot's request log (and the calls metric) once the answer
 * is sent, unless the step that answered it wrote the entry. Returns what gives a step its call's
 * entry: none while entries of the same bot wait to be written (they go first).
 */
export function registerRequestLog(
  app: FastifyInstance,
  redis: Redis,
  logger: Logger,
  registry: Registry,
): (req: FastifyRequest) => StepLog | undefined {
  const counted = registry.counter(
    "starpost_bot_api_calls_total",
    'Bot API calls answered, by method (unknown names as "unknown") and HTTP status',
    ["method", "status"],
  );
  // The answer has gone out: a write Redis refuses for memory is counted, never turned into an error.
  const log = new RequestLogWriter(redis, (err) => {
    countIfRefused(registry, err, "best_effort");
    // Redis not answering: the outage's one line, not a line per call.
    if (isStorageUnavailable(err)) reportStorageUnavailable(logger, err);
    else logger.warn({ err: { message: err.message } }, "request log write failed");
  });
  // The entries of the last calls are written before the gateway lets go of Redis.
  app.addHook("onClose", () => log.drain());
  // A callback hook: an async one costs a promise and a microtask turn on every call.
  app.addHook("onSend", (req, reply, payload, done) => {
    const call = calls.get(req);
    if (!call) return done(null, payload);
    const status = reply.statusCode;
    counted.inc({ method: findMethod(call.method) ?? "unknown", status });
    if (call.logged) return done(null, payload);
    let error: { error_code?: number; description?: string } = {};
    if (status !== 200) {
      try {
        const body = typeof payload === "string" ? JSON.parse(payload) : payload;
        error = { error_code: body.error_code, description: body.description };
      } catch {
        error = { error_code: status };
      }
    }
    log.add(call.botId, entryOf(call, status, error));
    done(null, payload);
  });
  return (req) => {
    const call = calls.get(req);
    if (!call || log.waiting(call.botId)) return undefined;
    return { entry: JSON.stringify(entryOf(call, 200, {})), written: () => (call.logged = true) };
  };
}
