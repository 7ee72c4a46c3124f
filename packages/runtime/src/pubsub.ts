import type { Redis } from "ioredis";

/** How long a channel stays subscribed after its last holder let go (the bot's next poll is near). */
const LINGER_MS = 60_000;

interface Held {
  holders: number;
  subscribed: Promise<unknown>;
  linger?: NodeJS.Timeout;
}

/**
 * Per-bot shard channels (SSUBSCRIBE) on the process's subscriber connection: one connection per
 * process, one subscription per bot that something here waits for, never one per waiter. On a
 * Redis Cluster a shard channel lives in its bot's slot, so a message travels only to the master
 * that owns the bot (classic PUBLISH is copied to every node of the cluster). One Redis 7 serves
 * shard channels too, so both modes share this path.
 */
export class ShardChannels {
  private readonly held = new Map<string, Held>();
  private readonly handler = (channel: string, message: string) => {
    if (this.held.has(channel)) this.onMessage(channel, message);
  };

  constructor(
    private readonly subscriber: Redis,
    private readonly onMessage: (channel: string, message: string) => void,
  ) {
    subscriber.on("smessage", this.handler);
  }

  /** Resolves once messages on `channel` reach `onMessage`; pair every call with `release`. */
  hold(channel: string): Promise<unknown> {
    let h = this.held.get(channel);
    if (!h) {
      const subscribed = this.subscriber.ssubscribe(channel);
      this.held.set(channel, (h = { holders: 0, subscribed }));
    }
    h.holders++;
    clearTimeout(h.linger);
    h.linger = undefined;
    const held = h;
    return held.subscribed.catch((err: unknown) => {
      // A failed subscription is tried again by the next holder.
      if (this.held.get(channel) === held) this.held.delete(channel);
      throw err;
    });
  }

  release(channel: string): void {
    const h = this.held.get(channel);
    if (!h || --h.holders > 0) return;
    h.linger = setTimeout(() => this.drop(channel, h), LINGER_MS);
    h.linger.unref();
  }

  /** Channels subscribed now (held or lingering). */
  get size(): number {
    return this.held.size;
  }

  async close(): Promise<void> {
    this.subscriber.off("smessage", this.handler);
    const channels = [...this.held.keys()];
    for (const h of this.held.values()) clearTimeout(h.linger);
    this.held.clear();
    await Promise.all(channels.map((c) => this.subscriber.sunsubscribe(c).catch(() => undefined)));
  }

  private drop(channel: string, h: Held): void {
    if (this.held.get(channel) !== h || h.holders > 0) return;
    this.held.delete(channel);
    this.subscriber.sunsubscribe(channel).catch(() => undefined);
  }
}
