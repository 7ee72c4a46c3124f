import { randomBytes } from "node:crypto";
import { Platform } from "./bot-api.ts";
import { startProcessStack, type ProcessStack, type ProcessStackOptions } from "./compose-stack.ts";
import { startRedis, type RedisServer } from "./redis-server.ts";

export interface LocalStack {
  redis: RedisServer;
  stack: ProcessStack;
  gatewayUrl: string;
  platformToken: string;
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
}

/**
 * A private redis-server and every service of docker-compose.yml as its own process on it, for
 * the end-to-end tests and the benchmarks. Webhooks to 127.0.0.1 are allowed (the receivers of
 * tests and benchmarks listen there) unless `env` says otherwise.
 */
export async function startLocalStack(opts: LocalStackOptions = {}): Promise<LocalStack> {
  const { appendonly, appendfsync, platformToken = `local-${randomBytes(16).toString("hex")}`, ...rest } = opts;
  const redis = await startRedis({ appendonly, appendfsync });
  let stack: ProcessStack;
  try {
    stack = await startProcessStack({
      ...rest,
      redisUrl: redis.url,
      env: { WEBHOOK_ALLOW_PRIVATE_NETWORKS: "true", ...rest.env, PLATFORM_TOKEN: platformToken },
    });
  } catch (err) {
    await redis.stop();
    throw err;
  }
  return {
    redis,
    stack,
    gatewayUrl: stack.gatewayUrl,
    platformToken,
    platform: new Platform(stack.gatewayUrl, platformToken),
    pid: (service) => stack.processes.find((p) => p.service === service)!.child.pid!,
    async stop() {
      await stack.stop();
      await redis.stop();
    },
  };
}
