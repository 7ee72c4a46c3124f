import { Redis, type RedisOptions } from "ioredis";
import type { Logger } from "./logger.ts";
import { defineScripts } from "./lua/index.ts";

export type { Redis };

export interface RedisFactoryOptions {
  url: string;
  logger: Logger;
  /** a label for logs (e.g. "subscriber"). */
  role: string;
  /** BullMQ connections must not limit retries per request. */
  bullmq?: boolean;
}

/**
 * The one Redis factory: a retry strategy and an error listener always attached, starpost's Lua
 * commands defined. A blocking reader or a subscriber gets its own client from here.
 */
export function createRedis(opts: RedisFactoryOptions): Redis {
  const options: RedisOptions = {
    lazyConnect: false,
    retryStrategy: (times) => Math.min(50 * 2 ** Math.min(times, 6), 2000),
    ...(opts.bullmq ? { maxRetriesPerRequest: null } : { maxRetriesPerRequest: 3, enableAutoPipelining: true }),
    connectionName: `starpost:${opts.role}`,
  };
  const client = new Redis(opts.url, options);
  let lastLogged = 0;
  client.on("error", (err) => {
    // A dead Redis produces an error per retry; one line a second is enough.
    const now = Date.now();
    if (now - lastLogged > 1000) {
      lastLogged = now;
      opts.logger.error({ err: { message: err.message }, role: opts.role }, "redis error");
    }
  });
  defineScripts(client);
  return client;
}
