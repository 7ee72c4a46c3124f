import type { IncomingMessage, ServerResponse } from "node:http";

/**
 * The reference's bound on one bot's active requests (Client::send, Client.cpp at 01a3679, line
 * 7970): while a bot has GATEWAY_BOT_MAX_ACTIVE_REQUESTS calls in progress (long polls aside), its
 * next one is refused before its parameters are read, so one bot flooding the gateway leaves the
 * others their share of it.
 */
export class ActiveCalls {
  private active = new Map<string, number>();

  constructor(private readonly max: number) {}

  /**
   * Counts the bot's call until its answer is sent or its connection closes, whichever comes
   * first (an answer queued behind another on a keep-alive connection that dies emits no `close`
   * of its own; its request does); false (nothing counted) when the bot is at the bound.
   */
  enter(botId: string, req: IncomingMessage, res: ServerResponse): boolean {
    const count = this.active.get(botId) ?? 0;
    if (count >= this.max) return false;
    this.active.set(botId, count + 1);
    let left = false;
    const leave = () => {
      if (left) return;
      left = true;
      const rest = this.active.get(botId)! - 1;
      if (rest === 0) this.active.delete(botId);
      else this.active.set(botId, rest);
    };
    res.once("close", leave);
    req.once("close", leave);
    return true;
  }
}

/**
 * The reference answers a call over the bound after 3 s (fail_query_flood_limit_exceeded,
 * Client.cpp line 16262) with 429 "retry after 60": the wait slows a flooding client down, and
 * costs the gateway a timer, not work.
 */
export const FLOOD_ANSWER_DELAY_MS = 3_000;
export const FLOOD_RETRY_AFTER_S = 60;
