import { Redis } from "ioredis";
import { keys } from "@starpost/shared";
import {
  checkToken,
  hashToken,
  parseToken,
  sameHash,
  unknownAfterHashing,
  type Logger,
  type TokenCheck,
} from "@starpost/runtime";

/**
 * The gateway's in-process cache of bot records, so a bot's call costs no Redis read to
 * authenticate. It is kept true by Redis's server-assisted client-side caching: the bot hashes
 * are read on a connection with CLIENT TRACKING on, and Redis pushes the name of every tracked key
 * that changes (a rotated token, a deleted bot, a fault added or taken) to a subscriber connection
 * (RESP2 needs the REDIRECT), which drops the entry. Every write to a bot's hash is answered only
 * after one more round trip to Redis (`invalidationsSent`; creation and deletion make theirs
 * anyway), by when every replica's message was sent: a rotation or deletion is seen at once.
 *
 * Nothing is served from the cache unless both connections are up and tracking is on: on any
 * disconnect the cache is emptied and calls read Redis directly until tracking is on again. A read
 * whose answer crosses an invalidation (or a reconnect) is not cached.
 *
 * Only on one Redis: on Redis Cluster tracking is per node and the bot hashes are spread over the
 * masters (and move on failover), so the gateway reads every call instead (no cache).
 */

interface Entry {
  /** the token that matched the bot's hash: the same token is the bot's while the entry lives. */
  token: string;
  username: string;
  firstName: string;
  hasFaults: boolean;
}

/** Entries kept at most; past it the cache starts over (the records are small and cheap to read). */
const MAX_ENTRIES = 200_000;
const INVALIDATE = "__redis__:invalidate";

export class BotCache {
  private readonly entries = new Map<string, Entry>();
  /** bumped by every invalidation and disconnect: a read that saw it change is not cached. */
  private generation = 0;
  private tracking = false;
  /** the subscriber connection's client id, once it is subscribed. */
  private subId: number | undefined;
  private readonly data: Redis;
  private readonly sub: Redis;

  constructor(
    url: string,
    private readonly logger: Logger,
    /** REDIS_COMMAND_TIMEOUT_MS, for the reads (not the subscriber): a frozen Redis fails the call instead of holding it. */
    commandTimeoutMs?: number,
  ) {
    const options = {
      maxRetriesPerRequest: 1,
      enableAutoPipelining: true,
      autoResubscribe: false,
      enableOfflineQueue: false,
    };
    this.data = new Redis(url, {
      ...options,
      connectionName: "starpost:gateway-bot-cache",
      ...(commandTimeoutMs ? { commandTimeout: commandTimeoutMs } : {}),
    });
    this.sub = new Redis(url, { ...options, connectionName: "starpost:gateway-bot-invalidations" });
    for (const conn of [this.data, this.sub]) {
      conn.on("error", () => undefined); // the main connection logs Redis errors
      conn.on("close", () => this.reset());
    }
    this.sub.on("close", () => (this.subId = undefined));
    this.sub.on("ready", () => void this.subscribe());
    this.data.on("ready", () => void this.track());
    this.sub.on("messageBuffer", (_channel: Buffer, message: Buffer[] | Buffer | null) => {
      this.generation++;
      if (!Array.isArray(message))
        this.entries.clear(); // a flush: every tracked key is gone
      else for (const key of message) this.entries.delete(key.toString());
    });
  }

  private reset() {
    this.tracking = false;
    this.generation++;
    this.entries.clear();
  }

  private warn(err: unknown) {
    this.logger.warn(
      { err: { message: (err as Error).message } },
      "bot cache: tracking not on, reading Redis per call",
    );
  }

  /** The subscriber connection is (again) up: it takes the invalidations, then tracking goes on. */
  private async subscribe() {
    try {
      const id = (await this.sub.client("ID")) as number;
      await this.sub.subscribe(INVALIDATE);
      this.subId = id;
      await this.track();
    } catch (err) {
      this.warn(err);
    }
  }

  /** Turns tracking on, redirected to the subscriber, once both connections are up (again). */
  private async track() {
    const subId = this.subId;
    if (this.data.status !== "ready" || subId === undefined) return;
    this.reset();
    const generation = this.generation;
    try {
      await this.data.client("TRACKING", "ON", "REDIRECT", String(subId));
      if (this.generation === generation && this.subId === subId) this.tracking = true;
    } catch (err) {
      this.warn(err);
    }
  }

  /**
   * checkToken, answered from the cache when it accepts: a token the cache holds for its bot is
   * the bot's. Every other token (a wrong secret, an id with no bot) is decided by one Redis read
   * and a constant-time hash comparison, so a refusal takes the same time whether the bot exists,
   * and whether it was active lately, or not. `redis` reads when tracking is off.
   */
  async check(redis: Redis, token: string): Promise<TokenCheck> {
    if (!this.tracking) return checkToken(redis, token);
    const parsed = parseToken(token);
    if (!parsed) return { outcome: "malformed" };
    const key = keys.bot(parsed.id);
    // A refused token always costs the read below, so this comparison's timing shows nothing.
    let entry = this.entries.get(key);
    if (entry?.token !== token) {
      const generation = this.generation;
      const [hash, username, firstName, faults] = await this.data.hmget(
        key,
        "token_hash",
        "username",
        "first_name",
        "faults",
      );
      if (!hash) return unknownAfterHashing(token);
      if (!sameHash(hash, hashToken(token))) return { outcome: "unknown" };
      entry = { token, username: username!, firstName: firstName!, hasFaults: faults !== null };
      if (this.tracking && this.generation === generation) {
        if (this.entries.size >= MAX_ENTRIES) this.entries.clear();
        this.entries.set(key, entry);
      }
    }
    return {
      outcome: "ok",
      bot: { id: parsed.id, username: entry.username, first_name: entry.firstName },
      hasFaults: entry.hasFaults,
    };
  }

  async close(): Promise<void> {
    this.tracking = false;
    await Promise.all([this.data.quit().catch(() => undefined), this.sub.quit().catch(() => undefined)]);
  }
}
