import type { MethodHandlers } from "@starpost/shared";
import type { PollingDeps } from "./types.ts";

/** getUpdates (long polling). */
export function pollingHandlers(_deps: PollingDeps): MethodHandlers {
  return {};
}
