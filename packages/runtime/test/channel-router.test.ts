import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Redis } from "ioredis";
import { channels, type Happened, type WakeMessage } from "@starpost/shared";
import { ChannelRouter, createLogger, createRedis } from "@starpost/runtime";
import { eventually, startRedis, type RedisServer } from "@starpost/testkit";

describe("the channel router", () => {
  let server: RedisServer;
  let publisher: Redis;
  let subscriber: Redis;
  let router: ChannelRouter;

  beforeAll(async () => {
    server = await startRedis();
    const logger = createLogger("test", "silent");
    publisher = createRedis({ url: server.url, logger, role: "test" });
    subscriber = createRedis({ url: server.url, logger, role: "test-subscriber" });
    router = new ChannelRouter(subscriber);
  });
  afterAll(async () => {
    await router?.close();
    await Promise.all([publisher?.quit(), subscriber?.quit()]);
    await server?.stop();
  });

  it("subscribes a bot's channel once for all its listeners and hands each of them every message, decoded", async () => {
    const a: WakeMessage[] = [];
    const b: WakeMessage[] = [];
    const other: WakeMessage[] = [];
    const la = router.listen(channels.wake, "71", (m) => a.push(m));
    const lb = router.listen(channels.wake, "71", (m) => b.push(m));
    const lo = router.listen(channels.wake, "72", (m) => other.push(m));
    await Promise.all([la.ready, lb.ready, lo.ready]);
    expect(router.size).toBe(2);
    const numsub = (await publisher.call("PUBSUB", "SHARDNUMSUB", channels.wake.name("71"))) as [string, number];
    expect(numsub[1]).toBe(1);

    await publisher.spublish(
      channels.wake.name("71"),
      channels.wake.encode({ kind: "conflict", botId: "71", pollId: "p.1" }),
    );
    await publisher.spublish(channels.wake.name("71"), "71 unknown words"); // not the codec's: nobody hears it
    await publisher.spublish(channels.wake.name("71"), channels.wake.encode({ kind: "grew", botId: "71" }));
    await eventually(() => b.length === 2);
    expect(a).toEqual([
      { kind: "conflict", botId: "71", pollId: "p.1" },
      { kind: "grew", botId: "71" },
    ]);
    expect(other).toEqual([]);

    la.stop();
    await publisher.spublish(channels.wake.name("71"), "71");
    await eventually(() => b.length === 3);
    expect(a).toHaveLength(2);
    lb.stop();
    lo.stop();
  });

  it("keeps a channel subscribed for a while after its last listener left, and a new listener reuses it", async () => {
    const heard: Happened[] = [];
    const first = router.listen(channels.preCheckoutAnswered, "73", () => undefined);
    await first.ready;
    first.stop();
    const second = router.listen(channels.preCheckoutAnswered, "73", (m) => heard.push(m));
    await second.ready;
    await publisher.spublish(
      channels.preCheckoutAnswered.name("73"),
      channels.preCheckoutAnswered.encode({ botId: "73", id: "q1" }),
    );
    await eventually(() => heard.length === 1);
    expect(heard).toEqual([{ botId: "73", id: "q1" }]);
    second.stop();
  });

  it("hands a local message to this process's listeners without Redis, and tells onMaybeLost when the subscriber reconnects", async () => {
    const heard: Happened[] = [];
    const l = router.listen(channels.callbackAnswered, "74", (m) => heard.push(m));
    await l.ready;
    router.local(channels.callbackAnswered, "74", { botId: "74", id: "c9" });
    expect(heard).toEqual([{ botId: "74", id: "c9" }]);

    let lost = 0;
    const stopTelling = router.onMaybeLost(() => lost++);
    subscriber.disconnect(true);
    await eventually(() => lost > 0);
    stopTelling();
    // Resubscribed after the reconnect: messages reach the listener again.
    await eventually(async () => {
      await publisher.spublish(channels.callbackAnswered.name("74"), "74:c10");
      return heard.at(-1)?.id === "c10";
    });
    expect(heard.at(-1)).toEqual({ botId: "74", id: "c10" });
    l.stop();
  });
});
