import type { FastifyInstance } from "fastify";
import type { Redis } from "ioredis";
import { Errors, keys } from "@starpost/shared";
import { isBotId, type Logger } from "@starpost/runtime";

export interface ReplicaWaitOptions {
  /** REDIS_WAIT_REPLICAS: 0 turns the wait off. */
  replicas: number;
  timeoutMs: number;
}

/**
 * Waits until `replicas` replicas of the bot's master have every write made to it so far, by any
 * client (the answer a payer hears may rest on a write another replica made). WAIT counts from
 * its connection's last write, so a small write in the bot's slot goes first: it follows every
 * earlier write in the master's replication stream. WAIT has no key; the pipeline sends it to
 * the bot's master with that write. Resolves to the number of replicas that confirmed.
 */
export async function waitForReplicas(redis: Redis, botId: string, opts: ReplicaWaitOptions): Promise<number> {
  const reply = await redis
    .pipeline()
    .set(keys.replicaMark(botId), "1", "PX", 1000)
    .wait(opts.replicas, opts.timeoutMs)
    .exec();
  const [err, confirmed] = reply?.[1] ?? [new Error("no reply to WAIT"), 0];
  if (err) throw err;
  return Number(confirmed);
}

/**
 * With REDIS_WAIT_REPLICAS=N, a successful answer about a bot (a Bot API call, a platform push or
 * payment) is sent only after N replicas have the writes behind it, so a master's failover cannot
 * lose what the caller was told happened. When they do not confirm in time the caller gets 500
 * instead: the write may or may not survive, and the caller retries (at least once, never lost).
 */
export function registerReplicaWait(
  app: FastifyInstance,
  redis: Redis,
  logger: Logger,
  opts: ReplicaWaitOptions,
): void {
  if (opts.replicas <= 0) return;
  app.addHook("onSend", async (req, reply, payload) => {
    if (reply.statusCode !== 200) return payload;
    const botId =
      (req.params as { botId?: unknown } | undefined)?.botId ?? (req.body as { botId?: unknown } | undefined)?.botId;
    if (typeof botId !== "string" || !isBotId(botId)) return payload;
    const confirmed = await waitForReplicas(redis, botId, opts).catch((err: Error) => {
      logger.warn({ botId, err: { message: err.message } }, "WAIT failed");
      return -1;
    });
    if (confirmed >= opts.replicas) return payload;
    logger.warn({ botId, confirmed, wanted: opts.replicas }, "write not confirmed by enough replicas; answering 500");
    const err = Errors.internal();
    reply.code(err.error_code).type("application/json");
    return JSON.stringify(err.toJSON());
  });
}
