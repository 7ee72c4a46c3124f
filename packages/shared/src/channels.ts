import { perBot } from "./redis-keys.ts";

/**
 * The shard channels (SPUBLISH/SSUBSCRIBE), each in its bot's slot, so on a Redis Cluster a
 * message travels only to the master that owns the bot: every channel's name and the codec of its
 * messages, declared together. Lua writes some of them (named below); change both sides together.
 * Bot ids, poll ids, chat ids and query ids never contain spaces or colons.
 */
export interface Channel<M> {
  /** the bot's channel. */
  name(botId: string | number): string;
  encode(message: M): string;
  /** undefined for a message this codec does not know. */
  decode(raw: string): M | undefined;
}

/**
 * The wake channel's messages, heard by every process that holds a poll or drains a webhook of the
 * bot (a drain reads the log on "grew" and re-reads the webhook on the others). Lua writes the
 * first two with update-log's wake.lua (appends and getUpdates' claim); the
 * webhook ones are written by set-webhook.lua, delete-webhook.lua and delete-bot.lua with the text
 * encoded here (passed in as an argument).
 *   "<botId>"                    the bot's log grew (wake_grew)
 *   "<botId> updates <first id> <count> <JSON array>"
 *                                the bot's log grew by these updates (ids from first id on, each
 *                                one more): a waiting poll answers with them, no read (wake_grew)
 *   "<botId> conflict <pollId>"  a newer poll took over; that poll must answer 409 (wake_conflict)
 *   "<botId> webhook"            setWebhook: every waiting poll of the bot answers 409, a running
 *                                drain re-reads the webhook
 *   "<botId> webhook deleted"    deleteWebhook or bot deletion: a running drain re-reads the webhook;
 *                                polls ignore it
 */
export type WakeMessage =
  | { kind: "grew"; botId: string; updates?: CarriedUpdates }
  | { kind: "conflict"; botId: string; pollId: string }
  | { kind: "webhook"; botId: string }
  | { kind: "webhook_deleted"; botId: string };

/** The updates one append added, as the wake message carries them. */
export interface CarriedUpdates {
  /** the first one's update_id; the others follow it one by one. */
  firstId: number;
  count: number;
  /** their JSON array, as getUpdates answers it. */
  json: string;
}

const UPDATES = " updates ";
const CONFLICT = " conflict ";
const WEBHOOK = " webhook";
const WEBHOOK_DELETED = " webhook deleted";

const wake: Channel<WakeMessage> = {
  name: (botId) => perBot("wake", botId),
  encode(m) {
    if (m.kind === "grew")
      return m.updates ? `${m.botId}${UPDATES}${m.updates.firstId} ${m.updates.count} ${m.updates.json}` : m.botId;
    if (m.kind === "conflict") return `${m.botId}${CONFLICT}${m.pollId}`;
    if (m.kind === "webhook") return `${m.botId}${WEBHOOK}`;
    return `${m.botId}${WEBHOOK_DELETED}`;
  },
  decode(raw) {
    const space = raw.indexOf(" ");
    if (space < 0) return { kind: "grew", botId: raw };
    const botId = raw.slice(0, space);
    const rest = raw.slice(space);
    if (rest === WEBHOOK) return { kind: "webhook", botId };
    if (rest === WEBHOOK_DELETED) return { kind: "webhook_deleted", botId };
    if (raw.startsWith(CONFLICT, space)) return { kind: "conflict", botId, pollId: raw.slice(space + CONFLICT.length) };
    if (raw.startsWith(UPDATES, space)) {
      const at = space + UPDATES.length;
      const gap = raw.indexOf(" ", at);
      const end = raw.indexOf(" ", gap + 1);
      const firstId = Number(raw.slice(at, gap));
      const count = Number(raw.slice(gap + 1, end));
      if (gap < 0 || end < 0 || !Number.isSafeInteger(firstId) || !Number.isSafeInteger(count)) return undefined;
      return { kind: "grew", botId, updates: { firstId, count, json: raw.slice(end + 1) } };
    }
    return undefined;
  },
};

/**
 * Something of the bot's, named by `id`, happened: `<bot id>:<id>`, or `<bot id>:<id> <detail>`
 * when the message also tells how it ended (a pre-checkout answer's outcome, say).
 */
export interface Happened {
  botId: string;
  id: string;
  detail?: string;
}

const happened = (name: string): Channel<Happened> => ({
  name: (botId) => perBot(name, botId),
  encode: ({ botId, id, detail }) => (detail === undefined ? `${botId}:${id}` : `${botId}:${id} ${detail}`),
  decode(raw) {
    const colon = raw.indexOf(":");
    if (colon < 0) return undefined;
    const space = raw.indexOf(" ", colon);
    if (space < 0) return { botId: raw.slice(0, colon), id: raw.slice(colon + 1) };
    return { botId: raw.slice(0, colon), id: raw.slice(colon + 1, space), detail: raw.slice(space + 1) };
  },
});

export const channels = {
  wake,
  /**
   * a pre-checkout query (id) was answered, with how: "paid <charge id>", "declined <error
   * message>" or "failed <error message>"; the name part written by TypeScript, the detail by
   * answer-pre-checkout.lua.
   */
  preCheckoutAnswered: happened("pcq-answered"),
  /** a callback query (id) was answered; written by TypeScript. */
  callbackAnswered: happened("cbq-answered"),
  /** the bot sent a message to a chat (id); written by send-invoice.lua. */
  chatWrote: happened("chat-wake"),
} as const;
