import type { Redis } from "ioredis";
import type { Logger, OwnEndpoints } from "@starpost/runtime";
import type { DeliveryQueues } from "@starpost/update-log";

export interface WebhookDeps {
  redis: Redis;
  deliveryQueue: DeliveryQueues;
  logger: Logger;
  allowPrivateNetworks: boolean;
  /** starpost's own listeners, which no webhook may target. */
  ownEndpoints: OwnEndpoints;
}
