import { channels, type WakeMessage } from "@starpost/shared";
import type { ChannelRouter, Logger } from "@starpost/runtime";

/** How long a drain waits for its subscription before starting without it. */
const SUBSCRIBE_WAIT_MS = 1000;

/**
 * What a drain of this worker process hears of its bot, through the process's channel router on
 * the bot's wake channel: the log grew (an append's step), or the webhook was set, deleted or the
 * bot removed (their Lua steps). A message can be lost (the subscriber reconnecting): then every
 * watcher is told `undefined`, "anything may have happened", and reads both again.
 */
export class WebhookChanges {
  constructor(
    private readonly router: ChannelRouter,
    private readonly logger: Logger,
  ) {}

  /**
   * Calls `heard` with every message of the bot's wake channel. `ready` resolves once the
   * subscription is active (at once when this process already holds it), so a first read after it
   * misses nothing; if subscribing takes longer than SUBSCRIBE_WAIT_MS or fails, `ready` resolves
   * anyway and a late subscription calls `heard(undefined)` once.
   */
  watch(botId: string, heard: (message: WakeMessage | undefined) => void): { ready: Promise<void>; stop(): void } {
    const listening = this.router.listen(channels.wake, botId, heard);
    const stopLost = this.router.onMaybeLost(() => heard(undefined));
    let watching = true;
    let waited = false;
    const subscribed = listening.ready.then(
      () => {
        if (waited && watching) heard(undefined);
      },
      (err: Error) =>
        this.logger.warn(
          { botId, err: { message: err.message } },
          "drain subscription failed; its drain reads on its own",
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
