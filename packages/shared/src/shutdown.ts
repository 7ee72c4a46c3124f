import type { Logger } from "./logger.ts";

/**
 * Graceful shutdown on SIGTERM/SIGINT: run `stop` once (stop accepting, finish in-flight work,
 * close Redis), then exit. A second signal, or `stop` taking longer than `graceMs`, exits at once.
 */
export function onShutdown(logger: Logger, stop: () => Promise<void>, graceMs = 65_000): void {
  let stopping = false;
  const handler = (signal: NodeJS.Signals) => {
    if (stopping) process.exit(1);
    stopping = true;
    logger.info({ signal }, "shutting down");
    const timer = setTimeout(() => {
      logger.error("shutdown took too long; exiting");
      process.exit(1);
    }, graceMs);
    timer.unref();
    stop().then(
      () => process.exit(0),
      (err) => {
        logger.error({ err }, "shutdown failed");
        process.exit(1);
      },
    );
  };
  process.on("SIGTERM", handler);
  process.on("SIGINT", handler);
}
