import { z } from "zod";

// Webhook settings' parameters (owned by services/updates, webhook configuration).
export const SetWebhookParams = z.looseObject({});
export const DeleteWebhookParams = z.looseObject({});
export const GetWebhookInfoParams = z.object({});
