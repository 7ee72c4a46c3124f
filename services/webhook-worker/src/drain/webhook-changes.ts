import { channels } from "@starpost/shared";
import type { ChannelRouter, Logger } from "@starpost/runtime";

/** How long a drain waits for its subscription before starting without it. */
const SUBSCRIBE_WAIT_MS = 1000;

/**
 * setWebhook, deleteWebhook and bot deletion, heard by the drains of this worker process: their
 * Lua steps publish on the bot's wake channel, which the process's channel router listens on for
 * every bot being drained here. For a bot with a webhook that channel carries nothing else
 * (appends publish only when no webhook is set), so any message is a reason to re-read the webhook.
 *
 * A message can be lost (the subscriber reconnecting): drains also re-read on a slow timer, and
 * every watcher is told to re-read when the router says messages may have been lost.
 */
export class WebhookChanges {
  constructor(
    private readonly router: ChannelRouter,
    private readonly logger: Logger,
  ) {}

  /**
   * Calls `onChange` on every message of the bot's wake channel. `ready` resolves once the
   * subscription is active (at once when this process already holds it), so a first read of the
   * webhook after it misses nothing; if subscribing takes longer than SUBSCRIBE_WAIT_MS or fails,
   * `ready` resolves anyway (the caller's slow re-read covers) and a late subscription calls
   * `onChange` once.
   */
  watch(botId: string, onChange: () => void): { ready: Promise<void>; stop(): void } {
    const listening = this.router.listen(channels.wake, botId, () => onChange());
    const stopLost = this.router.onMaybeLost(onChange);
    let watching = true;
    let waited = false;
    const subscribed = listening.ready.then(
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
        stopLost();
        listening.stop();
      },
    };
  }
}
