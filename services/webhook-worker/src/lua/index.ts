import { luaSlot, RUNTIME_LUA, scriptsIn } from "@starpost/runtime";
import { ticketOf, UPDATE_LOG_LUA } from "@starpost/update-log";

const { one } = luaSlot;

const script = scriptsIn(import.meta.url, [UPDATE_LOG_LUA, RUNTIME_LUA]);

const done = (n: number) => n === 1;

type Flat = string[];

/** The webhook worker's scripts, each declared once. */
export const workerScripts = {
  openDrain: script("open-drain.lua", {
    keys: { webhook: one(), status: one(), log: one() },
    args: { count: one<number>(), mode: one<"job" | "retry">(), ticket: one() },
    /**
     * the verdict, the webhook's and the status's hashes as field/value lists, the log's first
     * rows and the open drain epoch's ticket.
     */
    reply: ([verdict, webhook, status, rows, ticket]: [string, Flat, Flat, [string, Flat][], string]) => ({
      verdict,
      webhook,
      status,
      rows,
      ticket: ticketOf(ticket),
    }),
  }),
  closeDrain: script("close-drain.lua", {
    keys: { webhook: one(), log: one() },
    args: { ticket: one() },
    reply: (epoch: string) => epoch as "closed" | "more" | "stale",
  }),
  parkDrain: script("park-drain.lua", {
    keys: { webhook: one(), status: one() },
    args: { generation: one(), retryAt: one<number | "run">() },
    /** false when the webhook changed meanwhile. */
    reply: done,
  }),
  releaseRetry: script("release-retry.lua", {
    keys: { webhook: one(), status: one(), log: one() },
    args: {},
    /** the open drain epoch's ticket when updates are pending for the bot's webhook. */
    reply: (ticket: string) => ticketOf(ticket),
  }),
  claimRetries: script("claim-retries.lua", {
    keys: { retries: one() },
    args: { now: one<number>(), claimed: one<number>(), max: one<number>() },
    reply: ([head, ...bots]: string[]) => ({ head: head === "" ? undefined : Number(head), bots }),
  }),
  dropRetry: script("drop-retry.lua", {
    keys: { retries: one() },
    args: { botId: one(), claimed: one<number>() },
    reply: done,
  }),
  recordReplyIgnored: script("record-reply-ignored.lua", {
    keys: { webhook: one(), status: one() },
    args: { generation: one(), dateField: one(), date: one<number>(), messageField: one(), message: one() },
    /** false when the webhook changed meanwhile. */
    reply: done,
  }),
  recordWebhookFailure: script("record-webhook-failure.lua", {
    keys: { webhook: one(), status: one(), activity: one() },
    args: {
      attempt: one(),
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
