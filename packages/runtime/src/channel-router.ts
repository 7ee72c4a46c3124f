import type { Redis } from "ioredis";
import type { Channel } from "@starpost/shared";

/** How long a channel stays subscribed after its last listener left (the bot's next wait is near). */
const LINGER_MS = 60_000;

/** One subscribed channel: its decoder and everything of this process listening on it. */
interface Held {
  decode: (raw: string) => unknown;
  listeners: Set<(message: unknown) => void>;
  subscribed: Promise<unknown>;
  linger?: NodeJS.Timeout;
}

/** A listener's handle: `ready` once its channel is subscribed (rejects if subscribing failed). */
export interface Listening {
  ready: Promise<void>;
  stop(): void;
}

/**
 * The process's one channel router, on its one subscriber connection: it subscribes a bot's shard
 * channel (SSUBSCRIBE) while anything here listens on it, decodes each message once with the
 * channel's codec (the contract's `channels`) and hands it to that channel's listeners. Waiting
 * costs a listener, never a Redis connection or a subscription per waiter. On a Redis Cluster a
 * shard channel lives in its bot's slot; one Redis 7 serves shard channels too.
 *
 * A message can be lost while the subscriber reconnects or a cluster node comes or goes;
 * `onMaybeLost` tells whoever must then look again.
 */
export class ChannelRouter {
  private readonly held = new Map<string, Held>();
  private readonly lost = new Set<() => void>();
  private readonly onMessage = (channel: string, raw: string) => {
    const h = this.held.get(channel);
    if (!h) return;
    const message = h.decode(raw);
    if (message === undefined) return;
    for (const listener of [...h.listeners]) listener(message);
  };
  private readonly onLost = () => {
    for (const fn of [...this.lost]) fn();
  };

  constructor(private readonly subscriber: Redis) {
    subscriber.on("smessage", this.onMessage);
    subscriber.on("ready", this.onLost);
    subscriber.on("+node", this.onLost);
    subscriber.on("-node", this.onLost);
  }

  /** Hands each message of the bot's `channel` to `listener`, decoded, until `stop()`. */
  listen<M>(channel: Channel<M>, botId: string, listener: (message: M) => void): Listening {
    const name = channel.name(botId);
    let h = this.held.get(name);
    if (!h) {
      h = { decode: (raw) => channel.decode(raw), listeners: new Set(), subscribed: this.subscriber.ssubscribe(name) };
      this.held.set(name, h);
    }
    const held = h;
    const own = (m: unknown) => listener(m as M);
    held.listeners.add(own);
    clearTimeout(held.linger);
    held.linger = undefined;
    const ready = held.subscribed.then(
      () => undefined,
      (err: unknown) => {
        // A failed subscription is tried again by the next listener.
        if (this.held.get(name) === held) this.held.delete(name);
        throw err;
      },
    );
    let listening = true;
    return {
      ready,
      stop: () => {
        if (!listening) return;
        listening = false;
        held.listeners.delete(own);
        if (held.listeners.size > 0 || this.held.get(name) !== held) return;
        held.linger = setTimeout(() => this.drop(name, held), LINGER_MS);
        held.linger.unref();
      },
    };
  }

  /** Hands `message` to this process's listeners of the bot's channel, as if it had been heard. */
  local<M>(channel: Channel<M>, botId: string, message: M): void {
    for (const listener of [...(this.held.get(channel.name(botId))?.listeners ?? [])]) listener(message);
  }

  /** Tells `fn` whenever messages may have been lost; returns the call that stops telling. */
  onMaybeLost(fn: () => void): () => void {
    this.lost.add(fn);
    return () => this.lost.delete(fn);
  }

  /** Channels subscribed now (listened on or lingering). */
  get size(): number {
    return this.held.size;
  }

  async close(): Promise<void> {
    this.subscriber.off("smessage", this.onMessage);
    this.subscriber.off("ready", this.onLost);
    this.subscriber.off("+node", this.onLost);
    this.subscriber.off("-node", this.onLost);
    this.lost.clear();
    const names = [...this.held.keys()];
    for (const h of this.held.values()) clearTimeout(h.linger);
    this.held.clear();
    await Promise.all(names.map((c) => this.subscriber.sunsubscribe(c).catch(() => undefined)));
  }

  private drop(name: string, h: Held): void {
    if (this.held.get(name) !== h || h.listeners.size > 0) return;
    this.held.delete(name);
    this.subscriber.sunsubscribe(name).catch(() => undefined);
  }
}
