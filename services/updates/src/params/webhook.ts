import { isIP } from "node:net";
import { z } from "zod";
import {
  Errors,
  isWebhookUrlLike,
  parseWebhookUrl,
  boolParam,
  hasFile,
  looseInt,
  optionalString,
  fail,
  reader,
} from "@starpost/shared";
import { DEFAULT_MAX_CONNECTIONS } from "@starpost/runtime";
import { readAllowedUpdatesParam } from "@starpost/update-log";

// Webhook settings' parameters (owned by services/updates, webhook configuration).

const SECRET_TOKEN = /^[A-Za-z0-9_-]*$/;
const MAX_SECRET_TOKEN = 256;

/**
 * setWebhook. With an empty url every other parameter but drop_pending_updates is ignored (the
 * webhook is deleted), so the checks below run only for a non-empty url, in the official
 * server's order: URL, secret token length, its characters, then ip_address.
 */
export const SetWebhookParams = z
  .looseObject({
    url: optionalString(),
    secret_token: optionalString(),
    // The official server clamps max_connections to 1..100 and never errors on it.
    max_connections: looseInt(),
    ip_address: optionalString(),
    drop_pending_updates: boolParam(),
    allowed_updates: reader("readAllowedUpdatesParam", z.unknown().optional()),
    // A file part, or `attach://<part>` naming one (hasFile): accepted and not used.
    certificate: reader("hasFile", z.unknown().optional()),
  })
  .superRefine((p, ctx) => {
    if (p.url === undefined) return;
    if (!isWebhookUrlLike(p.url)) return fail(ctx, Errors.webhookUrlInvalid());
    const secret = p.secret_token ?? "";
    // Bytes, as the reference counts (so 200 "é" are too long, not unallowed characters).
    if (Buffer.byteLength(secret, "utf8") > MAX_SECRET_TOKEN) return fail(ctx, Errors.secretTokenTooLong());
    if (!SECRET_TOKEN.test(secret)) return fail(ctx, Errors.secretTokenChars());
    if (p.ip_address !== undefined && !isIP(p.ip_address)) return fail(ctx, Errors.webhookIpInvalid());
    // A URL td's parser takes but whose host no resolver can (`https://1.2.3.256/`): the reference
    // fails later, resolving it (line 15961).
    if (!parseWebhookUrl(p.url)) return fail(ctx, Errors.webhookHostUnresolved());
  })
  .transform((p) => ({
    url: p.url ?? "",
    secret_token: p.secret_token ?? "",
    max_connections: Math.min(100, Math.max(1, p.max_connections ?? DEFAULT_MAX_CONNECTIONS)),
    ip_address: p.ip_address ?? "",
    drop_pending_updates: p.drop_pending_updates ?? false,
    /** undefined: keep the previous setting; null: back to the default set. */
    allowed_updates: readAllowedUpdatesParam(p.allowed_updates),
    has_certificate: hasFile(p, "certificate"),
  }));
export type SetWebhookParams = z.infer<typeof SetWebhookParams>;

/** deleteWebhook: drop_pending_updates, and allowed_updates, saved when there was no webhook to delete. */
export const DeleteWebhookParams = z
  .looseObject({
    drop_pending_updates: boolParam(),
    allowed_updates: reader("readAllowedUpdatesParam", z.unknown().optional()),
  })
  .transform((p) => ({
    drop_pending_updates: p.drop_pending_updates ?? false,
    allowed_updates: readAllowedUpdatesParam(p.allowed_updates),
  }));
export type DeleteWebhookParams = z.infer<typeof DeleteWebhookParams>;

export const GetWebhookInfoParams = z.object({});
