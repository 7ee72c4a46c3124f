import type { Redis } from "ioredis";
import { listen } from "@starpost/shared";

/**
 * Payments waiting for their pre-checkout answer, woken through one pub/sub subscription per
 * process: the answer may land on any replica, which publishes `<bot id>:<query id>`. Waiting
 * costs a timer and a map entry, never a Redis connection. A lost wake-up only delays the
 * caller to the timeout, where the state in Redis still tells the answer.
 */
export class AnswerWaiters {
  /** key -> the wake-ups of everyone waiting on it (a payment and its idempotent repeats). */
  private readonly waiting = new Map<string, Set<() => void>>();
  private unlisten: (() => Promise<void>) | undefined;

  constructor(
    private readonly subscriber: Redis,
    private readonly channel: string,
  ) {}

  async start(): Promise<void> {
    this.unlisten = await listen(this.subscriber, this.channel, (key) => this.wakeLocal(key));
  }

  get size(): number {
    let n = 0;
    for (const set of this.waiting.values()) n += set.size;
    return n;
  }

  /**
   * Starts waiting at once (call it before the answer can possibly come); resolves true when
   * woken, false after `ms`.
   */
  wait(key: string, ms: number): Promise<boolean> {
    return new Promise((resolve) => {
      const set = this.waiting.get(key) ?? new Set();
      const wake = () => done(true);
      const done = (woken: boolean) => {
        clearTimeout(timer);
        set.delete(wake);
        if (set.size === 0 && this.waiting.get(key) === set) this.waiting.delete(key);
        resolve(woken);
      };
      const timer = setTimeout(() => done(false), ms);
      set.add(wake);
      this.waiting.set(key, set);
    });
  }

  /** Wakes a waiter of this process only. */
  wakeLocal(key: string): void {
    for (const wake of [...(this.waiting.get(key) ?? [])]) wake();
  }

  /** Wakes the waiter wherever it is: here at once, on other replicas through pub/sub. */
  async wake(publisher: Redis, key: string): Promise<void> {
    this.wakeLocal(key);
    await publisher.publish(this.channel, key);
  }

  async close(): Promise<void> {
    for (const set of [...this.waiting.values()]) for (const wake of [...set]) wake();
    await this.unlisten?.();
  }
}
