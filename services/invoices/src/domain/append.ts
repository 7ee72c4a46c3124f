import { appendUpdate, scheduleDrain, type AppendOutcome } from "@starpost/shared";
import type { InvoiceDomain } from "./deps.ts";

/**
 * Appends a payment update to the bot's log and makes sure a webhook bot gets it delivered. A
 * service message (successful_payment, refunded_payment) joins its chat's history in the same step.
 */
export async function appendPaymentUpdate(
  d: Pick<InvoiceDomain, "redis" | "deliveryQueue">,
  botId: string,
  kind: "pre_checkout_query" | "message",
  payload: Record<string, unknown>,
): Promise<AppendOutcome> {
  const chat = payload.chat as { id: number } | undefined;
  const history = kind === "message" && chat ? { chatId: chat.id, messageId: payload.message_id as number } : undefined;
  const appended = await appendUpdate(d.redis, botId, kind, payload, Date.now(), history);
  if (appended.outcome === "appended" && appended.webhook) await scheduleDrain(d.deliveryQueue, botId);
  return appended;
}
