import { drainJobId, scheduleDrain, type DeliveryQueues } from "@starpost/shared";

/**
 * Makes the bot's drain run now: a drain waiting out a retry delay of the old webhook is
 * promoted, otherwise one is scheduled (a running drain notices the new settings by itself).
 */
export async function kickDrain(queues: DeliveryQueues, botId: string): Promise<void> {
  const job = await queues.forBot(botId).getJob(drainJobId(botId));
  if (job && (await job.isDelayed())) {
    await job.promote().catch(() => undefined); // it may have started meanwhile
    return;
  }
  await scheduleDrain(queues, botId);
}
