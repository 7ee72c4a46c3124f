import type { FastifyBaseLogger, FastifyServerOptions } from "fastify";
import type { Logger } from "@starpost/runtime";

type ChildLoggerFactory = NonNullable<FastifyServerOptions["childLoggerFactory"]>;
const LEVELS = ["fatal", "error", "warn", "info", "debug", "trace"] as const;
const BINDINGS = Symbol("bindings");
const CHILD = Symbol("child");
type RequestLogger = FastifyBaseLogger & {
  [BINDINGS]: Parameters<ChildLoggerFactory>[1];
  [CHILD]?: FastifyBaseLogger;
};
const requestLoggerBases = new WeakMap<FastifyBaseLogger, FastifyBaseLogger>();

/**
 * fastify gives every request a child logger carrying its reqId, and almost no request logs
 * anything: the child is built the first time its request logs at an enabled level (the methods
 * of the other levels are the logger's own no-ops). This reaches past pino's public API (an object
 * whose prototype is the logger, its level methods replaced): test/runtime-adapters.test.ts fails
 * when a pino or fastify version stops honouring it. What it saves is in docs/performance.md.
 */
export const requestLogger: ChildLoggerFactory = (logger, bindings, opts) => {
  if (opts.level !== undefined || opts.serializers !== undefined) return logger.child(bindings, opts);
  let base = requestLoggerBases.get(logger);
  if (!base) {
    base = Object.create(logger) as FastifyBaseLogger;
    const real = (l: RequestLogger) => (l[CHILD] ??= logger.child(l[BINDINGS]));
    for (const level of LEVELS) {
      if (!(logger as Logger).isLevelEnabled(level)) continue;
      base[level] = function (this: RequestLogger, ...args: unknown[]) {
        return (real(this)[level] as (...a: unknown[]) => void)(...args);
      } as FastifyBaseLogger["info"];
    }
    base.child = function (this: RequestLogger, b, o) {
      return real(this).child(b, o);
    };
    requestLoggerBases.set(logger, base);
  }
  const l = Object.create(base) as RequestLogger;
  l[BINDINGS] = bindings;
  return l;
};
