import type { Redis } from "ioredis";
import { keys } from "@starpost/shared";
import { ShardChannels, type Logger } from "@starpost/runtime";

/** How long a drain waits for its subscription before starting without it. */
const SUBSCRIBE_WAIT_MS = 1000;

/**
 * setWebhook, deleteWebhook and bot deletion, pushed to the drains of this worker process: their
 * Lua steps publish on the bot's wake channel, which one subscriber connection per process holds
 * for every bot being drained here (ShardChannels), never one per drain. For a bot with a webhook
 * that channel carries nothing else (appends publish only when no webhook is set), so any message
 * is a reason to re-read the webhook.
 *
 * A message can be lost (the subscriber reconnecting): drains also re-read on a slow timer, and
 * every watcher is told to re-read once the subscriber is ready again.
 */
export class WebhookChanges {
  private readonly channels: ShardChannels;
  /** listeners by channel: the drains of that bot (one, unless a stalled drain is still ending). */
  private readonly listeners = new Map<string, Set<() => void>>();
  private readonly onReady = () => this.notifyAll();

  constructor(
    private readonly subscriber: Redis,
    private readonly logger: Logger,
  ) {
    this.channels = new ShardChannels(subscriber, (channel) => this.notify(channel));
    subscriber.on("ready", this.onReady);
  }

  /**
   * Calls `onChange` on every message of the bot's wake channel. `ready` resolves once the
   * subscription is active (at once when this process already holds it), so a first read of the
   * webhook after it misses nothing; if subscribing takes longer than SUBSCRIBE_WAIT_MS or fails,
   * `ready` resolves anyway (the caller's slow re-read covers) and a late subscription calls
   * `onChange` once.
   */
  watch(botId: string, onChange: () => void): { ready: Promise<void>; stop(): void } {
    const channel = keys.wakeChannel(botId);
    let set = this.listeners.get(channel);
    if (!set) this.listeners.set(channel, (set = new Set()));
    set.add(onChange);
    let watching = true;
    let waited = false;
    const subscribed = this.channels.hold(channel).then(
      () => {
        if (waited && watching) onChange();
      },
      (err: Error) =>
        this.logger.warn(
          { botId, err: { message: err.message } },
          "webhook change subscription failed; re-reading slowly",
        ),
    );
    let timer: NodeJS.Timeout | undefined;
    const ready = Promise.race([
      subscribed,
      new Promise<void>((resolve) => {
        timer = setTimeout(() => {
          waited = true;
          resolve();
        }, SUBSCRIBE_WAIT_MS);
      }),
    ]).finally(() => clearTimeout(timer));
    return {
      ready,
      stop: () => {
        if (!watching) return;
        watching = false;
        set.delete(onChange);
        if (set.size === 0) this.listeners.delete(channel);
        this.channels.release(channel);
      },
    };
  }

  async close(): Promise<void> {
    this.subscriber.off("ready", this.onReady);
    await this.channels.close();
  }

  private notify(channel: string): void {
    for (const onChange of this.listeners.get(channel) ?? []) onChange();
  }

  private notifyAll(): void {
    for (const set of this.listeners.values()) for (const onChange of set) onChange();
  }
}
