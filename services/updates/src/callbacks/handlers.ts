import { success, type MethodHandlers } from "@starpost/shared";

/**
 * answerCallbackQuery. The platform owns the user's client, so there is nobody to show the
 * answer to: the call is validated and acknowledged. Bots answer every button press (grammY's
 * ctx.answerCallbackQuery, telegraf's webhook reply), so refusing it would break them.
 */
export function callbackHandlers(): MethodHandlers {
  return {
    answerCallbackQuery: async () => success(true),
  };
}
