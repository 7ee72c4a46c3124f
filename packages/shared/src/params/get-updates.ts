import { z } from "zod";

// getUpdates' parameters (owned by services/updates, long polling).
export const GetUpdatesParams = z.looseObject({});
