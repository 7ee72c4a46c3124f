import { scheduleDrain } from "@starpost/shared";
import type { InvoiceDomain } from "./deps.ts";

/**
 * After a Lua step appended to the bot's log: a webhook bot (`webhook`, the script's pending
 * signal) gets its drain job. If this process dies first, the workers' reconciler schedules it.
 */
export async function signalWebhook(
  d: Pick<InvoiceDomain, "deliveryQueue">,
  botId: string,
  webhook: boolean,
): Promise<void> {
  if (webhook) await scheduleDrain(d.deliveryQueue, botId);
}
