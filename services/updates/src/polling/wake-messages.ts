/**
 * Messages on a bot's wake channel (`keys.wakeChannel(botId)`), heard by every updates replica
 * that holds a poll of that bot:
 *   "<botId>"                    the bot's log grew (update-log.lua)
 *   "<botId> conflict <pollId>"  a newer poll took over; that poll must answer 409 (poll-updates.lua)
 *   "<botId> webhook"            setWebhook: every waiting poll of the bot answers 409
 * Bot ids and poll ids never contain spaces.
 */
export type WakeMessage =
  | { kind: "grew"; botId: string }
  | { kind: "conflict"; botId: string; pollId: string }
  | { kind: "webhook"; botId: string };

export function parseWakeMessage(message: string): WakeMessage | undefined {
  const space = message.indexOf(" ");
  if (space < 0) return { kind: "grew", botId: message };
  const botId = message.slice(0, space);
  const rest = message.slice(space + 1);
  if (rest === "webhook") return { kind: "webhook", botId };
  if (rest.startsWith("conflict ")) return { kind: "conflict", botId, pollId: rest.slice("conflict ".length) };
  return undefined;
}

export const webhookMessage = (botId: string) => `${botId} webhook`;
