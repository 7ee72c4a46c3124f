import { randomBytes } from "node:crypto";
import { keys, ok } from "@starpost/shared";
import type { Outcome } from "../outcomes.ts";
import type { InvoiceDomain } from "./deps.ts";
import type { InvoiceRecord } from "./send-invoice.ts";
import type { CreateInvoiceLinkParams } from "../params/invoices.ts";

/** What paying a link needs: the invoice, and the period when the link sells a subscription. */
export interface LinkRecord extends InvoiceRecord {
  subscription_period?: number;
}

/** The slug of a link (`https://t.me/$<slug>`), or undefined for anything else. */
export function linkSlug(link: string): string | undefined {
  return /^(?:https:\/\/t\.me\/\$)?([A-Za-z0-9_-]{16})$/.exec(link)?.[1];
}

/**
 * createInvoiceLink after the product checks: the link has Telegram's shape (`https://t.me/$…`)
 * and its invoice is stored under its slug, so `POST …/invoice_links/pay` can pay it.
 */
export async function createInvoiceLink(
  d: InvoiceDomain,
  botId: string,
  p: CreateInvoiceLinkParams,
): Promise<Outcome<string, never>> {
  const slug = randomBytes(12).toString("base64url");
  const record: LinkRecord = {
    payload: p.product.payload,
    currency: p.product.currency,
    total_amount: p.product.total_amount,
    title: p.product.title,
    ...(p.subscription_period ? { subscription_period: p.subscription_period } : {}),
  };
  await d.redis.hset(keys.invoiceLinks(botId), slug, JSON.stringify(record));
  return ok(`https://t.me/$${slug}`);
}
