import type { Channel, Happened } from "@starpost/shared";
import type { ChannelRouter, Listening } from "@starpost/runtime";

/**
 * Calls waiting for something the bot does — a payment for its pre-checkout answer, a button
 * press for its callback answer, a history read for the bot's next message — each on one of the
 * contract's `Happened` channels of the bot, through the process's channel router: the bot's call
 * may land on any replica, whose Lua step publishes `<bot id>:<id>`. Waiting costs a timer and a listener,
 * never a Redis connection. A lost wake-up only delays the caller to the timeout, where the state
 * in Redis still tells the answer. Several callers may wait on one id (a payment and its
 * idempotent repeats, held reads).
 */
export class AnswerWaiters {
  /** how each waiting call ends early when the process closes. */
  private readonly ending = new Set<() => void>();

  constructor(
    private readonly router: ChannelRouter,
    private readonly channel: Channel<Happened>,
  ) {}

  get size(): number {
    return this.ending.size;
  }

  /**
   * Starts waiting for `id` of the bot and resolves once subscribed (call it before the answer can
   * possibly come); `answered` resolves to the message that woke it (without a detail when the
   * process closes), undefined after `ms` or when `signal` aborts.
   */
  async wait(
    botId: string,
    id: string,
    ms: number,
    signal?: AbortSignal,
  ): Promise<{ answered: Promise<Happened | undefined> }> {
    let listening!: Listening;
    const answered = new Promise<Happened | undefined>((resolve) => {
      let finished = false;
      const done = (woken: Happened | undefined) => {
        if (finished) return;
        finished = true;
        clearTimeout(timer);
        this.ending.delete(end);
        listening.stop();
        resolve(woken);
      };
      const end = () => done({ botId, id });
      listening = this.router.listen(this.channel, botId, (m) => {
        if (m.id === id) done(m);
      });
      this.ending.add(end);
      const timer = setTimeout(() => done(undefined), ms);
      if (signal?.aborted) done(undefined);
      else signal?.addEventListener("abort", () => done(undefined), { once: true });
    });
    await listening.ready.catch(() => undefined); // unsubscribed: the timeout still ends it
    return { answered };
  }

  /** Wakes the waiters of `id` in this process only (with how it ended, when known). */
  wakeLocal(botId: string, id: string, detail?: string): void {
    this.router.local(this.channel, botId, { botId, id, ...(detail === undefined ? {} : { detail }) });
  }

  /** Ends every waiting call as answered (the state in Redis tells the caller what happened). */
  close(): void {
    for (const end of [...this.ending]) end();
  }
}
