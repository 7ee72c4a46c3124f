import { luaSlot, scriptsIn } from "@starpost/runtime";

const { one } = luaSlot;

const script = scriptsIn(import.meta.url);

const done = (n: number) => n === 1;

type Flat = string[];

/** The webhook worker's scripts, each declared once. */
export const workerScripts = {
  openDrain: script("open-drain.lua", {
    keys: { webhook: one(), status: one(), log: one() },
    args: { count: one<number>() },
    /** the webhook's and the status's hashes as field/value lists, and the log's first rows. */
    reply: ([webhook, status, rows]: [Flat, Flat, [string, Flat][]]) => ({ webhook, status, rows }),
  }),
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
