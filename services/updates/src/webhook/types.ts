import type { Queue } from "bullmq";
import type { Redis } from "ioredis";
import type { DrainJob, Logger } from "@starpost/shared";
import type { PollTerminator } from "../polling/types.ts";

export interface WebhookDeps {
  redis: Redis;
  deliveryQueue: Queue<DrainJob>;
  logger: Logger;
  allowPrivateNetworks: boolean;
  polls: PollTerminator;
}
