import type { Redis } from "ioredis";
import { ShardChannels } from "@starpost/runtime";

/**
 * Calls waiting for something the bot does — a payment for its pre-checkout answer, a button
 * press for its callback answer, a history read for the bot's next message — woken through the
 * bot's shard channel (`channelOf(botId)`) on the process's one subscriber: the bot's call may land
 * on any replica, which publishes the key `<bot id>:<id>`. Waiting costs a timer, a map entry and
 * a subscription per bot, never a Redis connection. A lost wake-up only delays the caller to the
 * timeout, where the state in Redis still tells the answer. Several callers may wait on one key
 * (a payment and its idempotent repeats, held reads).
 */
/** What a waiter waits on, and what its channel message carries: `<bot id>:<id>`. */
export const waiterKey = (botId: string, id: string) => `${botId}:${id}`;

export class AnswerWaiters {
  private readonly waiting = new Map<string, Set<() => void>>();
  private readonly channels: ShardChannels;
  private count = 0;

  constructor(
    subscriber: Redis,
    private readonly channelOf: (botId: string) => string,
  ) {
    this.channels = new ShardChannels(subscriber, (_channel, key) => this.wakeLocal(key));
  }

  get size(): number {
    return this.count;
  }

  /**
   * Starts waiting for `<bot id>:<id>` and resolves once subscribed (call it before the answer can
   * possibly come); `answered` resolves true when woken, false after `ms` or when `signal` aborts.
   */
  async wait(
    botId: string,
    id: string,
    ms: number,
    signal?: AbortSignal,
  ): Promise<{ key: string; answered: Promise<boolean> }> {
    const key = waiterKey(botId, id);
    const channel = this.channelOf(botId);
    const answered = new Promise<boolean>((resolve) => {
      const set = this.waiting.get(key) ?? new Set();
      this.waiting.set(key, set);
      this.count++;
      let finished = false;
      const wake = () => done(true);
      const done = (woken: boolean) => {
        if (finished) return;
        finished = true;
        clearTimeout(timer);
        set.delete(wake);
        if (set.size === 0 && this.waiting.get(key) === set) this.waiting.delete(key);
        this.count--;
        this.channels.release(channel);
        resolve(woken);
      };
      const timer = setTimeout(() => done(false), ms);
      set.add(wake);
      if (signal?.aborted) done(false);
      else signal?.addEventListener("abort", () => done(false), { once: true });
    });
    await this.channels.hold(channel).catch(() => undefined); // unsubscribed: the timeout still ends it
    return { key, answered };
  }

  /** Wakes the waiters of this process only. */
  wakeLocal(key: string): void {
    for (const wake of [...(this.waiting.get(key) ?? [])]) wake();
  }

  /** Wakes the waiters wherever they are: here at once, on other replicas through the bot's channel. */
  async wake(publisher: Redis, botId: string, id: string): Promise<void> {
    const key = waiterKey(botId, id);
    this.wakeLocal(key);
    await publisher.spublish(this.channelOf(botId), key);
  }

  async close(): Promise<void> {
    for (const set of [...this.waiting.values()]) for (const wake of [...set]) wake();
    await this.channels.close();
  }
}
