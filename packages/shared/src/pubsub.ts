import type { Redis } from "ioredis";

/**
 * Listens to one channel on the process's subscriber connection (one per process, shared by every
 * waiter, never one per waiter). Returns the function that stops listening.
 */
export async function listen(subscriber: Redis, channel: string, onMessage: (message: string) => void): Promise<() => Promise<void>> {
  const handler = (from: string, message: string) => {
    if (from === channel) onMessage(message);
  };
  subscriber.on("message", handler);
  await subscriber.subscribe(channel);
  return async () => {
    subscriber.off("message", handler);
    await subscriber.unsubscribe(channel).catch(() => undefined);
  };
}
