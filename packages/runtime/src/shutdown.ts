import type { Redis } from "ioredis";
import type { Logger } from "./logger.ts";

export interface ShutdownOptions {
  /** the longest a graceful stop may take (a webhook request in flight may take 60 s). */
  graceMs?: number;
  /** the process's Redis clients: while none can reach Redis, stopping does not wait for it. */
  redis?: Redis[];
  /** how long Redis may stay unreachable during a stop before the process exits anyway. */
  unreachableMs?: number;
}

const unreachable = (c: Redis) => c.status === "connecting" || c.status === "reconnecting";

/**
 * Graceful shutdown on SIGTERM/SIGINT, or when the process that started this one over an IPC
 * channel (the starter of `npm start` and `starpost start`, the testkit's stacks) is gone, however
 * it ended: run `stop` once (stop accepting, finish in-flight work, close Redis), then exit. A
 * second signal, or `stop` taking longer than `graceMs`, exits at once.
 * Without Redis nothing in flight can be confirmed or handed back (it stays pending there, and is
 * delivered or retried after the restart), so when Redis stays unreachable for `unreachableMs`
 * during the stop, the process exits at once instead of waiting for reconnects.
 */
export function onShutdown(logger: Logger, stop: () => Promise<void>, opts: ShutdownOptions = {}): void {
  const { graceMs = 65_000, redis = [], unreachableMs = 1000 } = opts;
  let stopping = false;
  const exit = (code: number) => {
    for (const c of redis) c.disconnect();
    process.exit(code);
  };
  const handler = (signal: NodeJS.Signals) => {
    if (stopping) exit(1);
    stopping = true;
    logger.info({ signal }, "shutting down");
    const timer = setTimeout(() => {
      logger.error("shutdown took too long; exiting");
      exit(1);
    }, graceMs);
    timer.unref();
    let downSince = 0;
    const watch = setInterval(() => {
      if (!redis.some(unreachable)) downSince = 0;
      else if (downSince === 0) downSince = Date.now();
      else if (Date.now() - downSince >= unreachableMs) {
        logger.warn("redis unreachable; exiting without waiting for in-flight work (it stays pending in redis)");
        exit(1);
      }
    }, 100);
    watch.unref();
    stop().then(
      () => exit(0),
      (err) => {
        logger.error({ err }, "shutdown failed");
        exit(1);
      },
    );
  };
  process.on("SIGTERM", handler);
  process.on("SIGINT", handler);
  // A starter killed with SIGKILL runs no handler: without this its services would go on (a
  // worker delivering from a Redis that the next start no longer uses). `send` stays defined once
  // the channel is gone, so a starter that died while this process was starting is seen too.
  if (process.send && !process.connected) handler("SIGTERM");
  else if (process.channel) {
    process.channel.unref();
    process.once("disconnect", () => {
      if (!stopping) handler("SIGTERM");
    });
  }
}
