import type { Redis } from "ioredis";
import type { Logger, Registry } from "@starpost/shared";

export interface PollingDeps {
  redis: Redis;
  /** a dedicated subscriber connection for wake-ups (one per process, never one per poll). */
  subscriber: Redis;
  logger: Logger;
  registry: Registry;
}

/** Answers every waiting getUpdates of a bot, on any replica, with a 409 (used by setWebhook). */
export interface PollTerminator {
  terminateForWebhook(botId: string): Promise<void>;
}
