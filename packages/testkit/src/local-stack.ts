import { randomBytes } from "node:crypto";
import { Platform } from "./bot-api.ts";
import { startProcessStack, type ProcessStack, type ProcessStackOptions } from "./compose-stack.ts";
import { clusterMode, SpreadingPlatform, startRedisCluster, type RedisCluster } from "./redis-cluster.ts";
import { startRedis, type RedisServer } from "./redis-server.ts";

export interface LocalStack {
  /** the private redis-server (absent on a cluster). */
  redis: RedisServer;
  /** the private Redis Cluster, when the stack runs on one. */
  cluster?: RedisCluster;
  stack: ProcessStack;
  gatewayUrl: string;
  platformToken: string;
  /** on a cluster it calls the last gateway replica (bots call the first) and spreads bots over the masters. */
  platform: Platform;
  /** the process id of a service's first process. */
  pid(service: string): number;
  stop(): Promise<void>;
}

export interface LocalStackOptions extends Omit<ProcessStackOptions, "redisUrl"> {
  /** the private Redis writes an append-only file (fsync always unless `appendfsync` says otherwise). */
  appendonly?: boolean;
  appendfsync?: "always" | "everysec";
  /** default: a random one. */
  platformToken?: string;
  /**
   * Run on a private 3-master, 3-replica Redis Cluster, with two replicas of gateway, updates and
   * invoices and three webhook workers (default: STARPOST_TEST_REDIS=cluster).
   */
  cluster?: boolean;
  /** on a cluster, run exactly `replicas` and `workers` instead of the suites' topology (benchmarks). */
  exactTopology?: boolean;
}

/** The topology the cluster runs of the test suites use. */
export const CLUSTER_REPLICAS = { gateway: 2, updates: 2, invoices: 2 };
export const CLUSTER_WORKERS = 3;

/**
 * A private redis-server (or Redis Cluster) and every service of docker-compose.yml as its own
 * process on it, for the end-to-end tests and the benchmarks. Webhooks to 127.0.0.1 are allowed
 * (the receivers of tests and benchmarks listen there) unless `env` says otherwise.
 */
export async function startLocalStack(opts: LocalStackOptions = {}): Promise<LocalStack> {
  const {
    appendonly,
    appendfsync,
    platformToken = `local-${randomBytes(16).toString("hex")}`,
    cluster: onCluster = clusterMode(),
    exactTopology,
    ...rest
  } = opts;
  const cluster = onCluster ? await startRedisCluster({ appendonly }) : undefined;
  const redis = cluster ? undefined : await startRedis({ appendonly, appendfsync });
  const stopRedis = () => (cluster ? cluster.stop() : redis!.stop());
  let stack: ProcessStack;
  try {
    stack = await startProcessStack({
      ...rest,
      ...(cluster && !exactTopology
        ? { replicas: { ...CLUSTER_REPLICAS, ...rest.replicas }, workers: Math.max(rest.workers ?? 0, CLUSTER_WORKERS) }
        : {}),
      // On a cluster REDIS_CLUSTER_NODES wins; the URL points nowhere so nothing can use it by mistake.
      redisUrl: redis?.url ?? "redis://127.0.0.1:1",
      env: {
        WEBHOOK_ALLOW_PRIVATE_NETWORKS: "true",
        // The compose file has no default: a fresh one per stack, unless the caller gives its own.
        INTERNAL_TOKEN: randomBytes(24).toString("hex"),
        ...rest.env,
        ...(cluster ? { REDIS_CLUSTER_NODES: cluster.seeds } : {}),
        PLATFORM_TOKEN: platformToken,
      },
    });
  } catch (err) {
    await stopRedis();
    throw err;
  }
  const platformUrl = stack.gatewayUrls.at(-1)!;
  return {
    redis: redis as RedisServer,
    cluster,
    stack,
    gatewayUrl: stack.gatewayUrl,
    platformToken,
    platform: cluster
      ? new SpreadingPlatform(platformUrl, platformToken, await cluster.masters())
      : new Platform(platformUrl, platformToken),
    pid: (service) => stack.processes.find((p) => p.service === service)!.child.pid!,
    async stop() {
      await stack.stop();
      await stopRedis();
    },
  };
}
