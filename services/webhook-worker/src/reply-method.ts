import type { Redis } from "ioredis";
import { findMethod, METHODS, type MethodSpec } from "@starpost/shared";
import { getBot, type Logger } from "@starpost/runtime";
import { type ServiceClient } from "@starpost/http";
import type { WorkerMetrics } from "./metrics.ts";

/**
 * A 2xx webhook answer carrying `{"method": ..., ...params}` runs that method for the bot in its
 * owning service; the result is discarded (the bot never sees it). The call carries the bot's
 * record like a gateway call does, read here once per answer; a bot deleted meanwhile runs nothing.
 */
export function replyMethodRunner(services: ServiceClient, redis: Redis, logger: Logger, metrics: WorkerMetrics) {
  const running = new Set<Promise<unknown>>();
  return {
    /** Settles (never rejects) when the call has: the caller holds the reply's bytes until then. */
    async run(botId: string, reply: Record<string, unknown>): Promise<void> {
      const method = findMethod(String(reply.method));
      if (!method) return metrics.replies.inc({ result: "unknown" });
      const spec: MethodSpec = METHODS[method];
      // The method table says which methods a webhook answer may not run (get*, setWebhook, ...).
      if (spec.webhookReply === false || spec.service === "gateway") return metrics.replies.inc({ result: "refused" });
      const service = spec.service;
      const { method: _method, ...params } = reply;
      const send = async () => {
        const bot = await getBot(redis, botId);
        return bot && services.call(service, method, bot, params);
      };
      const p = send().then(
        (res) => metrics.replies.inc({ result: res?.status === 200 ? "ok" : "error" }),
        (err: Error) => {
          metrics.replies.inc({ result: "error" });
          logger.warn({ botId, method, err: { message: err.message } }, "method from a webhook answer failed");
        },
      );
      running.add(p);
      void p.finally(() => running.delete(p));
      await p;
    },
    /** waits for the methods still running (shutdown). */
    async settle() {
      await Promise.allSettled([...running]);
    },
  };
}
