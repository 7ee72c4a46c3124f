import { z } from "zod";

// Parameters of the update-delivery methods (owned by services/updates).
export const GetUpdatesParams = z.looseObject({});
export const SetWebhookParams = z.looseObject({});
export const DeleteWebhookParams = z.looseObject({});
export const GetWebhookInfoParams = z.object({});
