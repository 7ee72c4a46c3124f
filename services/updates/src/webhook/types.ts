import type { Redis } from "ioredis";
import type { DeliveryQueues, Logger, OwnEndpoints } from "@starpost/shared";

export interface WebhookDeps {
  redis: Redis;
  deliveryQueue: DeliveryQueues;
  logger: Logger;
  allowPrivateNetworks: boolean;
  /** starpost's own listeners, which no webhook may target. */
  ownEndpoints: OwnEndpoints;
}
