import type { Redis } from "ioredis";
import type { DeliveryQueues, Logger } from "@starpost/shared";
import type { PollTerminator } from "../polling/types.ts";

export interface WebhookDeps {
  redis: Redis;
  deliveryQueue: DeliveryQueues;
  logger: Logger;
  allowPrivateNetworks: boolean;
  polls: PollTerminator;
}
