import { Cluster, Redis, type RedisOptions } from "ioredis";
import type { Logger } from "./logger.ts";
import type { Registry } from "./metrics.ts";
import { timeRedisCommands } from "./redis-latency.ts";

export type { Redis };

export interface HostPort {
  host: string;
  port: number;
}

export interface RedisFactoryOptions {
  /** one Redis (used when `clusterNodes` is empty). */
  url: string;
  /** seed nodes of a Redis Cluster: when given, the client is a cluster client. */
  clusterNodes?: HostPort[] | undefined;
  logger: Logger;
  /** a label for logs (e.g. "subscriber"). */
  role: string;
  /** BullMQ connections must not limit retries per request (nor time out: BullMQ blocks on them). */
  bullmq?: boolean;
  /** a subscriber or a connection for blocking reads: no command timeout (it would cut every wait). */
  blocking?: boolean;
  /**
   * REDIS_COMMAND_TIMEOUT_MS: a command unanswered this long fails ("Command timed out",
   * see isStorageUnavailable), so a frozen Redis cannot hold a call; not on BullMQ's or blocking connections.
   */
  commandTimeoutMs?: number | undefined;
  /** the process's metrics: its commands' latency goes to `starpost_redis_command_duration_seconds{role}`. */
  registry?: Registry;
}

const retryStrategy = (times: number) => Math.min(50 * 2 ** Math.min(times, 6), 2000);

/**
 * The one Redis factory: a retry strategy and an error listener always attached (starpost's Lua
 * scripts define themselves on a client when first run there). A blocking reader or a subscriber
 * gets its own client from here.
 *
 * With `clusterNodes` it builds a cluster client. Its type stays `Redis`: a cluster client answers
 * every command starpost sends (each names keys of one slot), so the services need no second path.
 */
export function createRedis(opts: RedisFactoryOptions): Redis {
  const options: RedisOptions = {
    lazyConnect: false,
    retryStrategy,
    // Autopipelining: the commands of one tick go out in one write (a webhook delivery costs the
    // worker and Redis 10-20 % less CPU than with a write per command). Its Pipeline per batch is
    // patched (patches/ioredis@5.11.1.patch): as published, it defines a `length` getter on each
    // instance, which kept every batch's commands alive through scavenges.
    ...(opts.bullmq ? { maxRetriesPerRequest: null } : { maxRetriesPerRequest: 3, enableAutoPipelining: true }),
    connectionName: `starpost:${opts.role}`,
    ...(opts.bullmq || opts.blocking || !opts.commandTimeoutMs ? {} : { commandTimeout: opts.commandTimeoutMs }),
  };
  const client = opts.clusterNodes?.length ? createCluster(opts.clusterNodes, options) : new Redis(opts.url, options);
  if (opts.registry) timeRedisCommands(client, opts.registry, opts.role);
  let lastLogged = 0;
  client.on("error", (err: Error) => {
    // A dead Redis produces an error per retry; one line a second is enough.
    const now = Date.now();
    if (now - lastLogged > 1000) {
      lastLogged = now;
      opts.logger.error({ err: { message: err.message }, role: opts.role }, "redis error");
    }
  });
  return client;
}

function createCluster(nodes: HostPort[], redisOptions: RedisOptions): Redis {
  const { enableAutoPipelining, retryStrategy: _perNodeRetry, ...perNode } = redisOptions;
  const cluster = new Cluster(nodes, {
    redisOptions: perNode,
    enableAutoPipelining: enableAutoPipelining ?? false,
    // The whole cluster unreachable: reconnect with the same backoff as one Redis. A master that
    // fails is waited out: commands are retried (and slots refreshed) while its replica is promoted.
    clusterRetryStrategy: retryStrategy,
    retryDelayOnFailover: 200,
    retryDelayOnClusterDown: 200,
    retryDelayOnTryAgain: 100,
    retryDelayOnMoved: 50,
    maxRedirections: 64,
    // Per-bot channels are shard channels: each is subscribed on the master that owns its slot.
    shardedSubscribers: true,
    slotsRefreshTimeout: 2000,
    slotsRefreshInterval: 2000,
  });
  return cluster as unknown as Redis;
}

/**
 * A connection of its own for blocking reads (XREAD BLOCK), made from `client`: without its
 * command timeout, which would cut every wait short; instead a blocking read that Redis leaves
 * unanswered (frozen) ends with nothing its own wait plus that timeout after it was sent.
 */
export function blockingConnection(client: Redis): Redis {
  const cluster = isCluster(client);
  const perNode: RedisOptions = cluster
    ? ((client as unknown as Cluster).options.redisOptions ?? {})
    : (client.options as RedisOptions);
  const grace = perNode.commandTimeout;
  const override: RedisOptions =
    grace === undefined ? {} : { commandTimeout: undefined, blockingTimeout: grace, blockingTimeoutGrace: grace };
  if (!cluster) return client.duplicate(override);
  const copy = (client as unknown as Cluster).duplicate([], { redisOptions: { ...perNode, ...override } });
  return copy as unknown as Redis;
}

/** True for a client built with `clusterNodes`. */
export function isCluster(client: Redis): boolean {
  return (client as unknown) instanceof Cluster;
}
