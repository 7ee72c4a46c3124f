/**
 * The messages of a bot's wake shard channel (`keys.wakeChannel(botId)`), heard by every updates
 * replica that holds a poll of that bot. One codec: Lua writes with lua/wake.lua (included by
 * update-log.lua and poll-updates.lua), TypeScript with this module; change the two together.
 *   "<botId>"                    the bot's log grew (wake_grew)
 *   "<botId> conflict <pollId>"  a newer poll took over; that poll must answer 409 (wake_conflict)
 *   "<botId> webhook"            setWebhook: every waiting poll of the bot answers 409, a running
 *                                drain re-reads the webhook
 *   "<botId> webhook deleted"    deleteWebhook or bot deletion: a running drain re-reads the webhook;
 *                                polls ignore it
 * The webhook messages are written by set-webhook.lua, delete-webhook.lua and delete-bot.lua with
 * the text this module encodes (passed in as an argument).
 * Bot ids and poll ids never contain spaces.
 */
export type WakeMessage =
  | { kind: "grew"; botId: string }
  | { kind: "conflict"; botId: string; pollId: string }
  | { kind: "webhook"; botId: string }
  | { kind: "webhook_deleted"; botId: string };

const CONFLICT = " conflict ";
const WEBHOOK = " webhook";
const WEBHOOK_DELETED = " webhook deleted";

export function encodeWakeMessage(m: WakeMessage): string {
  if (m.kind === "grew") return m.botId;
  if (m.kind === "conflict") return `${m.botId}${CONFLICT}${m.pollId}`;
  if (m.kind === "webhook") return `${m.botId}${WEBHOOK}`;
  return `${m.botId}${WEBHOOK_DELETED}`;
}

export function parseWakeMessage(message: string): WakeMessage | undefined {
  const space = message.indexOf(" ");
  if (space < 0) return { kind: "grew", botId: message };
  const botId = message.slice(0, space);
  const rest = message.slice(space);
  if (rest === WEBHOOK) return { kind: "webhook", botId };
  if (rest === WEBHOOK_DELETED) return { kind: "webhook_deleted", botId };
  if (message.startsWith(CONFLICT, space))
    return { kind: "conflict", botId, pollId: message.slice(space + CONFLICT.length) };
  return undefined;
}
