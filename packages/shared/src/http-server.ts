import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance, type FastifyServerOptions } from "fastify";
import { requestSerializers, type Logger } from "./logger.ts";

/**
 * Creates a service's fastify instance with starpost's common settings: the shared pino logger
 * with URL redaction (URLs hold bot tokens), no per-request log lines (hot paths; errors are
 * still logged), and timeouts suited to 50-second long polls.
 */
export function createHttpServer(logger: Logger, options: FastifyServerOptions = {}): FastifyInstance {
  return Fastify({
    loggerInstance: logger.child({}, { serializers: requestSerializers }) as FastifyBaseLogger,
    logController: new LogController({ disableRequestLogging: true }),
    keepAliveTimeout: 75_000,
    requestTimeout: 0,
    ...options,
  }) as unknown as FastifyInstance;
}
