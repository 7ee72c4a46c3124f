import type { Redis } from "ioredis";
import { listen } from "@starpost/shared";

/**
 * Calls waiting for something the bot does — a payment for its pre-checkout answer, a button
 * press for its callback answer, a history read for the bot's next message — woken through one
 * pub/sub subscription per channel and process: the bot's call may land on any replica, which
 * publishes the key (`<bot id>:<query id>`, `<bot id>:<chat id>`). Waiting costs a timer and a
 * map entry, never a Redis connection. A lost wake-up only delays the caller to the timeout,
 * where the state in Redis still tells the answer. Several callers may wait on one key.
 */
export class AnswerWaiters {
  /** key -> the wake-ups of everyone waiting on it (a payment and its idempotent repeats, held reads). */
  private readonly waiting = new Map<string, Set<() => void>>();
  private count = 0;
  private unlisten: (() => Promise<void>) | undefined;

  constructor(
    private readonly subscriber: Redis,
    private readonly channel: string,
  ) {}

  async start(): Promise<void> {
    this.unlisten = await listen(this.subscriber, this.channel, (key) => this.wakeLocal(key));
  }

  get size(): number {
    return this.count;
  }

  /**
   * Starts waiting at once (call it before the answer can possibly come); resolves true when
   * woken, false after `ms` or when `signal` aborts.
   */
  wait(key: string, ms: number, signal?: AbortSignal): Promise<boolean> {
    return new Promise((resolve) => {
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
        resolve(woken);
      };
      const timer = setTimeout(() => done(false), ms);
      set.add(wake);
      if (signal?.aborted) done(false);
      else signal?.addEventListener("abort", () => done(false), { once: true });
    });
  }

  /** Wakes the waiters of this process only. */
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
