import type { Redis } from "ioredis";
import { keys, ShardChannels } from "@starpost/shared";

/**
 * Payments waiting for their pre-checkout answer, woken through the bot's shard channel on the
 * process's one subscriber: the answer may land on any replica, which publishes
 * `<bot id>:<query id>`. Waiting costs a timer, a map entry and a subscription per bot, never a
 * Redis connection. A lost wake-up only delays the caller to the timeout, where the state in
 * Redis still tells the answer.
 */
export class AnswerWaiters {
  private readonly waiting = new Map<string, () => void>();
  private readonly channels: ShardChannels;

  constructor(subscriber: Redis) {
    this.channels = new ShardChannels(subscriber, (_channel, key) => this.wakeLocal(key));
  }

  get size(): number {
    return this.waiting.size;
  }

  /**
   * Starts waiting for `<bot id>:<query id>` and resolves once subscribed (call it before the
   * answer can possibly come); `answered` resolves true when woken, false after `ms`.
   */
  async wait(botId: string, queryId: string, ms: number): Promise<{ key: string; answered: Promise<boolean> }> {
    const key = `${botId}:${queryId}`;
    const channel = keys.preCheckoutChannel(botId);
    const answered = new Promise<boolean>((resolve) => {
      const done = (woken: boolean) => {
        clearTimeout(timer);
        this.waiting.delete(key);
        this.channels.release(channel);
        resolve(woken);
      };
      const timer = setTimeout(() => done(false), ms);
      this.waiting.set(key, () => done(true));
    });
    await this.channels.hold(channel).catch(() => undefined); // unsubscribed: the timeout still ends it
    return { key, answered };
  }

  /** Wakes a waiter of this process only. */
  wakeLocal(key: string): void {
    this.waiting.get(key)?.();
  }

  /** Wakes the waiter wherever it is: here at once, on other replicas through the bot's channel. */
  async wake(publisher: Redis, botId: string, queryId: string): Promise<void> {
    const key = `${botId}:${queryId}`;
    this.wakeLocal(key);
    await publisher.spublish(keys.preCheckoutChannel(botId), key);
  }

  async close(): Promise<void> {
    for (const wake of [...this.waiting.values()]) wake();
    await this.channels.close();
  }
}
