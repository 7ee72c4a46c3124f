import { lookup } from "node:dns/promises";
import { isIP } from "node:net";
import { hostname, networkInterfaces } from "node:os";
import type { Cluster } from "ioredis";
import { keys } from "@starpost/shared";
import { isCluster, type Redis } from "./redis.ts";

/**
 * starpost's own endpoints, which no webhook may reach whatever WEBHOOK_ALLOW_PRIVATE_NETWORKS says
 * (a webhook aimed at a service would make the worker a client of starpost's own internal routes).
 * Every process records the addresses its HTTP port listens on in one Redis hash before it listens
 * (`announceEndpoints`) and removes them when it stops; setWebhook and the worker's connections
 * check a destination against that hash and the Redis servers the process itself uses
 * (`OwnEndpoints`). Entries are per process (`<host>/<pid>`), so one of several replicas stopping
 * leaves the others' in place; a process killed outright leaves its entries until a process on the
 * same host starts and finds that pid gone. The hash holds one entry per address and port of each
 * process: its bound is the processes that ran.
 */

/** Loopback and unspecified addresses reach the same listeners (a wildcard bind): compared as one. */
const LOOPBACK = "loopback";

/** The form an address is compared in: IPv4-mapped IPv6 as IPv4, loopback and unspecified as one. */
export function addressClass(ip: string): string {
  let a = ip.startsWith("[") ? ip.slice(1, -1) : ip;
  if (isIP(a) === 6) {
    // URL parsing gives the canonical text: compressed, lower-case, a mapped IPv4 in hex.
    a = new URL(`http://[${a}]`).hostname.slice(1, -1);
    const mapped = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(a);
    if (!mapped) return a === "::1" || a === "::" ? LOOPBACK : a;
    const hi = Number.parseInt(mapped[1]!, 16);
    const lo = Number.parseInt(mapped[2]!, 16);
    a = `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`;
  }
  if (isIP(a) === 4) return a.startsWith("127.") || a === "0.0.0.0" ? LOOPBACK : a;
  return a;
}

/** The addresses a listener on `host` answers on: every interface's for a wildcard bind. */
async function listenAddresses(host: string): Promise<string[]> {
  if (host !== "0.0.0.0" && host !== "::") {
    const all = isIP(host) ? [host] : (await lookup(host, { all: true })).map((a) => a.address);
    return [...new Set(all.map(addressClass))];
  }
  const all = Object.values(networkInterfaces())
    .flat()
    .map((i) => addressClass(i!.address));
  return [...new Set([LOOPBACK, ...all])];
}

export interface AnnouncedEndpoints {
  /** Removes this process's entries (on a clean stop, before its Redis connection closes). */
  withdraw(): Promise<void>;
}

/**
 * Records where this process listens (its configured HOST and port) under its service's name,
 * after dropping the entries of processes on this host that no longer run. Called before the
 * process listens; a port of 0 (chosen by the system, tests only) is not recorded.
 */
export async function announceEndpoints(
  redis: Redis,
  service: string,
  listen: { host: string; port: number },
): Promise<AnnouncedEndpoints> {
  if (listen.port === 0) return { withdraw: async () => {} };
  const host = hostname();
  const owner = `${host}/${process.pid}`;
  const known = await redis.hkeys(keys.ownEndpoints());
  const gone = known.filter((field) => {
    const [h, pid] = (field.split(" ")[2] ?? "").split("/");
    return h === host && Number(pid) !== process.pid && !isRunning(Number(pid));
  });
  if (gone.length > 0) await redis.hdel(keys.ownEndpoints(), ...gone);
  const fields = (await listenAddresses(listen.host)).map((a) => `${a} ${listen.port} ${owner}`);
  await redis.hset(keys.ownEndpoints(), Object.fromEntries(fields.map((f) => [f, service])));
  return {
    async withdraw() {
      await redis.hdel(keys.ownEndpoints(), ...fields).catch(() => undefined);
    },
  };
}

function isRunning(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** How old the copy of the hash may be when a destination is checked. */
const MAX_AGE_MS = 5_000;

/**
 * The check: is `ip:port` one of starpost's own endpoints? The hash is read again when the copy is
 * older than a few seconds at the time of a check (checks come with new connections and
 * setWebhook, so nothing is read while nothing is dialled). The Redis servers this process talks
 * to are own endpoints too, a cluster's bus ports included.
 */
export class OwnEndpoints {
  private known = new Map<string, string>();
  private readAt = 0;
  private reading: Promise<void> | undefined;

  constructor(private readonly redis: Redis) {}

  /** The service that listens on `ip:port`, or undefined when it is not starpost's. */
  async find(ip: string, port: number): Promise<string | undefined> {
    if (Date.now() - this.readAt > MAX_AGE_MS) {
      this.reading ??= this.read().finally(() => (this.reading = undefined));
      try {
        await this.reading;
      } catch (err) {
        if (this.readAt === 0) throw err; // never read: nothing to judge by
      }
    }
    return this.known.get(`${addressClass(ip)} ${port}`);
  }

  private async read(): Promise<void> {
    const known = new Map<string, string>();
    for (const [host, port] of this.redisServers()) {
      const addresses = isIP(host) ? [host] : (await lookup(host, { all: true })).map((a) => a.address);
      for (const a of addresses) known.set(`${addressClass(a)} ${port}`, "redis");
    }
    const all = await this.redis.hgetall(keys.ownEndpoints());
    for (const [field, service] of Object.entries(all)) {
      const [address, port] = field.split(" ");
      known.set(`${address} ${port}`, service);
    }
    this.known = known;
    this.readAt = Date.now();
  }

  private redisServers(): [string, number][] {
    if (isCluster(this.redis)) {
      return (this.redis as unknown as Cluster).nodes("all").flatMap((n) => {
        const { host = "127.0.0.1", port = 6379 } = n.options;
        return [
          [host, port],
          [host, port + 10_000],
        ] as [string, number][];
      });
    }
    const { host = "127.0.0.1", port = 6379 } = this.redis.options;
    return [[host, port]];
  }
}
