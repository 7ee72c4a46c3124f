import { luaSlot, scriptsIn } from "@starpost/runtime";

const { one } = luaSlot;

const script = scriptsIn(import.meta.url);

const done = (n: number) => n === 1;

/** The webhook worker's script, declared once. */
export const workerScripts = {
  recordWebhookFailure: script("record-webhook-failure.lua", {
    keys: { webhook: one(), status: one() },
    args: {
      generation: one(),
      dateField: one(),
      date: one<number>(),
      messageField: one(),
      message: one(),
      okField: one(),
      retryField: one(),
      retry: one(),
    },
    /** false when the webhook changed meanwhile. */
    reply: done,
  }),
};
