import { channels, keys } from "@starpost/shared";
import { appendThenDeliver, type UpdateSink } from "./append.ts";
import { ticketOf } from "./ticket.ts";
import { logScripts } from "./lua/index.ts";

/** A replay lives as long as the longest-lived update kind: a day. */
const REPLAY_LIFETIME_MS = 86_400_000;

export type ReplayOutcome = "replayed" | "bot_not_found" | "pending" | "not_found";

/**
 * Delivers an update the bot already confirmed once more (same update_id, same body), by its
 * webhook or to its next getUpdates (replay-update.lua), and schedules its delivery.
 */
export async function replayUpdate(sink: UpdateSink, botId: string, updateId: number): Promise<ReplayOutcome> {
  const [outcome] = await appendThenDeliver(
    sink,
    botId,
    (redis) =>
      logScripts.replayUpdate(
        redis,
        {
          stream: keys.updateLog(botId),
          counter: keys.updateSeq(botId),
          activity: keys.activity(botId),
          webhook: keys.webhook(botId),
          bot: keys.bot(botId),
        },
        {
          updateId,
          expiry: Date.now() + REPLAY_LIFETIME_MS,
          wakeChannel: channels.wake.name(botId),
          botId,
        },
      ),
    ([outcome, , ticket]) => (outcome === "replayed" ? ticketOf(ticket) : undefined),
  );
  return outcome;
}
