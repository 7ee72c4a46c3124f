import { randomBytes } from "node:crypto";
import { success, type MethodOutcome, type ParamsOf } from "@starpost/shared";

/**
 * createInvoiceLink after the product checks. The link has Telegram's shape (`https://t.me/$…`);
 * paying through a link is not simulated by the platform API, which pays invoice messages.
 */
export async function createInvoiceLink(_p: ParamsOf<"createInvoiceLink">): Promise<MethodOutcome> {
  return success(`https://t.me/$${randomBytes(12).toString("base64url")}`);
}
