import type { Redis } from "ioredis";
import type { Logger, Registry } from "@starpost/runtime";

export interface PollingDeps {
  redis: Redis;
  /** a dedicated subscriber connection for wake-ups (one per process, never one per poll). */
  subscriber: Redis;
  logger: Logger;
  registry: Registry;
}
