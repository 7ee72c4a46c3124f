import { appendUpdate, scheduleDrain, type AppendOutcome } from "@starpost/shared";
import type { InvoiceDomain } from "./deps.ts";

/** Appends a payment update to the bot's log and makes sure a webhook bot gets it delivered. */
export async function appendPaymentUpdate(
  d: Pick<InvoiceDomain, "redis" | "deliveryQueue">,
  botId: string,
  kind: "pre_checkout_query" | "message",
  payload: Record<string, unknown>,
): Promise<AppendOutcome> {
  const appended = await appendUpdate(d.redis, botId, kind, payload);
  if (appended.outcome === "appended" && appended.webhook) await scheduleDrain(d.deliveryQueue, botId);
  return appended;
}
