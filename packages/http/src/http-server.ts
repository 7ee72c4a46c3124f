import { rmSync } from "node:fs";
import { createServer, type IncomingMessage } from "node:http";
import type { Socket } from "node:net";
import Fastify, {
  LogController,
  type FastifyBaseLogger,
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
  type FastifyServerOptions,
} from "fastify";
import { BotApiError, Errors } from "@starpost/shared";
import {
  isStorageUnavailable,
  isWriteRefused,
  reportStorageUnavailable,
  requestSerializers,
  STORAGE_FULL_RETRY_AFTER_S,
  STORAGE_UNAVAILABLE_RETRY_AFTER_S,
  type Logger,
} from "@starpost/runtime";
import { requestLogger } from "./request-logger.ts";
import { sendError } from "./service-app.ts";
import { internalSocket } from "./internal-calls.ts";

/** Answers an error that is neither a registry error nor a framework 4xx (the default logs it and answers 500). */
export type UnexpectedErrorHandler = (
  err: Error & { statusCode?: number; code?: string },
  req: FastifyRequest,
  reply: FastifyReply,
) => unknown;

const internalError: UnexpectedErrorHandler = (err, req, reply) => {
  req.log.error({ err: { message: err.message, stack: err.stack } }, "request failed");
  return sendError(reply, Errors.internal());
};

/**
 * Creates a service's fastify instance with starpost's common settings: the shared pino logger
 * with URL redaction (URLs hold bot tokens), no per-request log lines (hot paths; errors are
 * still logged), timeouts suited to 50-second long polls, and the one error handler, whose
 * unexpected case a service may answer its own way (`onUnexpected`).
 */
export function createHttpServer(
  logger: Logger,
  options: FastifyServerOptions = {},
  onUnexpected: UnexpectedErrorHandler = internalError,
): FastifyInstance {
  const app = Fastify({
    loggerInstance: logger.child({}, { serializers: requestSerializers }) as FastifyBaseLogger,
    logController: new LogController({ disableRequestLogging: true }),
    childLoggerFactory: requestLogger,
    keepAliveTimeout: 75_000,
    requestTimeout: 0,
    // Bytes that are not HTTP still get the Bot API envelope, never fastify's own error body.
    clientErrorHandler: (err: Error & { code?: string }, socket) => {
      // A request not received within headersTimeout/requestTimeout: 408, and the socket is let go
      // once that is written, whether or not the slow client ever closes its side.
      const timedOut = err.code === "ERR_HTTP_REQUEST_TIMEOUT";
      const error = timedOut ? Errors.requestTimeout() : Errors.invalidHttpRequest();
      const body = JSON.stringify(error);
      if (socket.writable) {
        socket.end(
          `HTTP/1.1 ${timedOut ? "408 Request Timeout" : "400 Bad Request"}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
          timedOut ? () => socket.destroy() : undefined,
        );
      } else socket.destroy();
    },
    ...options,
  }) as unknown as FastifyInstance;
  closeUnusedSocketsOnClose(app);
  // Every answer is the Bot API envelope: framework errors (bad JSON, bodies too large, unknown
  // routes) too, since the gateway passes a service's answer to the bot unchanged.
  app.setNotFoundHandler((_req, reply) => sendError(reply, Errors.notFound()));
  app.setErrorHandler((err: Error & { statusCode?: number; code?: string }, req, reply) => {
    if (err instanceof BotApiError || (err.statusCode ?? 500) < 500) {
      const error = errorFor(err);
      if (error.error_code >= 500) req.log.error({ err: { message: err.message, stack: err.stack } }, "request failed");
      return sendError(reply, error);
    }
    // Redis refused the call's step for memory: nothing of it was applied, so the caller may
    // send it again (counted by registerOps' onError hook).
    if (isWriteRefused(err)) {
      req.log.warn({ err: { message: err.message } }, "write refused: Redis is at maxmemory");
      return sendError(reply, Errors.storageFull(STORAGE_FULL_RETRY_AFTER_S));
    }
    // Redis did not answer in time: retryable, and one line per outage names it, not one per call.
    if (isStorageUnavailable(err)) {
      reportStorageUnavailable(logger, err);
      return sendError(reply, Errors.storageUnavailable(STORAGE_UNAVAILABLE_RETRY_AFTER_S));
    }
    return onUnexpected(err, req, reply);
  });
  return app;
}

/** The Bot API error for a thrown one: registry errors as they are, framework 4xx as bad requests, the rest internal. */
export function errorFor(err: Error & { statusCode?: number }): BotApiError {
  if (err instanceof BotApiError) return err;
  const status = err.statusCode ?? 500;
  if (status === 413) return Errors.tooLarge();
  if (status >= 400 && status < 500) return Errors.badRequestBody();
  return Errors.internal();
}

/**
 * Node's server.close() ends idle keep-alive sockets but waits forever on a socket that never
 * sent a request (HTTP clients pre-connect: undici opens one after a caller aborts a long poll),
 * which held a stopping service until its shutdown grace ran out. Those are destroyed on close.
 */
function closeUnusedSocketsOnClose(app: FastifyInstance) {
  const unused = new Set<Socket>();
  app.server.on("connection", (socket: Socket) => {
    unused.add(socket);
    socket.once("close", () => unused.delete(socket));
  });
  app.server.on("request", (req: IncomingMessage) => unused.delete(req.socket));
  app.addHook("preClose", async () => {
    for (const socket of unused) socket.destroy();
  });
}

/**
 * With INTERNAL_SOCKET_DIR set, a service also answers on its Unix socket there (the same routes:
 * requests are handed to the fastify server), so the gateway and workers on the same host skip
 * TCP. Closed with the app.
 */
export async function listenInternalSocket(app: FastifyInstance, dir: string, service: string): Promise<void> {
  if (!dir) return;
  const path = internalSocket(dir, service);
  rmSync(path, { force: true }); // left by a process that was killed
  const server = createServer({ keepAliveTimeout: 75_000, requestTimeout: 0 }, (req, res) => app.routing(req, res));
  app.addHook("onClose", async () => {
    if (!server.listening) return;
    const grace = setTimeout(() => server.closeAllConnections(), 5_000);
    await new Promise((resolve) => {
      server.close(resolve);
      server.closeIdleConnections();
    });
    clearTimeout(grace);
  });
  // Requests handed over before fastify is ready would find its hooks not yet built.
  await app.ready();
  // A Unix socket refuses a connect outright once its accept queue is full (TCP retries instead),
  // so the queue is as long as the kernel allows (net.core.somaxconn): thousands of long polls
  // opened at once each open a connection.
  await new Promise<void>((resolve, reject) => server.once("error", reject).listen({ path, backlog: 65_535 }, resolve));
}
