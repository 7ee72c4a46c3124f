import type { Redis } from "ioredis";
import type { DeliveryQueues, Logger } from "@starpost/shared";

export interface WebhookDeps {
  redis: Redis;
  deliveryQueue: DeliveryQueues;
  logger: Logger;
  allowPrivateNetworks: boolean;
}
