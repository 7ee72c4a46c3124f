import { execFile, spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { keys } from "@starpost/shared";
import { newSecret, type HostPort } from "@starpost/runtime";
import { Platform } from "./bot-api.ts";
import { stopProcess, track } from "./child-processes.ts";
import { freePort } from "./redis-server.ts";
import { eventually } from "./wait.ts";

const run = promisify(execFile);

/** One redis-server of the cluster. */
export interface ClusterNode {
  port: number;
  dir: string;
  process: ChildProcess;
}

export interface MasterInfo {
  port: number;
  /** slot ranges [from, to] this master serves. */
  slots: [number, number][];
}

export interface RedisCluster {
  nodes: ClusterNode[];
  /** the seed nodes, as REDIS_CLUSTER_NODES takes them. */
  seeds: string;
  clusterNodes: HostPort[];
  /** the masters now, as the cluster itself reports them. */
  masters(): Promise<MasterInfo[]>;
  /** the port of the master serving `slot` now. */
  masterOf(slot: number): Promise<number>;
  /** `redis-cli -p port args...`, its output. */
  cli(port: number, ...args: string[]): Promise<string>;
  /** kill -9 a node (it stays down until `restart`). */
  kill(port: number): Promise<void>;
  /** starts a killed node again on its port and data (it rejoins, as a replica once failed over). */
  restart(port: number): Promise<void>;
  /** waits until every live node reports cluster_state:ok and every replica's link is up. */
  waitHealthy(timeoutMs?: number): Promise<void>;
  stop(): Promise<void>;
}

function portIsFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const srv = createServer();
    srv.unref();
    srv.once("error", () => resolve(false));
    srv.listen(port, "127.0.0.1", () => srv.close(() => resolve(true)));
  });
}

/** A free port whose cluster bus port (port + 10000) is free too. */
async function freeClusterPort(taken: Set<number>): Promise<number> {
  for (let i = 0; i < 100; i++) {
    const port = await freePort();
    if (port + 10000 > 65535 || taken.has(port) || taken.has(port + 10000)) continue;
    if (await portIsFree(port + 10000)) return port;
  }
  throw new Error("no free port pair for a cluster node");
}

/** CRC16 (XMODEM) of the key's hash tag, mod 16384: the Redis Cluster slot. */
export function slotOf(key: string): number {
  const open = key.indexOf("{");
  if (open >= 0) {
    const close = key.indexOf("}", open + 1);
    if (close > open + 1) key = key.slice(open + 1, close);
  }
  let crc = 0;
  for (const byte of Buffer.from(key)) {
    crc ^= byte << 8;
    for (let i = 0; i < 8; i++) crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
  }
  return crc % 16384;
}

/** The slot of a bot's keys. */
export const botSlot = (botId: string | number) => slotOf(keys.bot(botId));

export interface RedisClusterOptions {
  /** masters, each with one replica (default 3). */
  masters?: number;
  nodeTimeoutMs?: number;
  appendonly?: boolean;
  /** keep the nodes' data here (one folder per port); stop is then a clean shutdown. */
  dir?: string;
  /** the nodes' ports (default: free ones whose bus port is free too). */
  ports?: number[];
}

/**
 * Starts a real Redis Cluster: `masters` masters with one replica each (3 + 3 by default), each a
 * redis-server with `--cluster-enabled yes` on a free port, joined by `redis-cli --cluster create`.
 * Nodes that find their nodes.conf in `dir` rejoin the cluster they formed before instead.
 * A short node timeout makes a failover take seconds, not the default 15 s.
 */
export async function startRedisCluster(opts: RedisClusterOptions = {}): Promise<RedisCluster> {
  const count = (opts.masters ?? 3) * 2;
  const root = opts.dir ?? mkdtempSync(join(tmpdir(), "starpost-cluster-"));
  const taken = new Set<number>();
  const ports: number[] = opts.ports ?? [];
  for (let i = ports.length; i < count; i++) {
    const port = await freeClusterPort(taken);
    taken.add(port).add(port + 10000);
    ports.push(port);
  }
  const formed = ports.every((p) => existsSync(join(root, String(p), "nodes.conf")));
  const launch = (port: number, dir: string) =>
    track(
      spawn(
        "redis-server",
        [
          "--port",
          String(port),
          "--bind",
          "127.0.0.1",
          "--dir",
          dir,
          "--save",
          "",
          "--protected-mode",
          "no",
          "--cluster-enabled",
          "yes",
          "--cluster-config-file",
          "nodes.conf",
          "--cluster-node-timeout",
          String(opts.nodeTimeoutMs ?? 2000),
          // A replica may always take over, however long it was cut off (tests kill masters at will).
          "--cluster-replica-validity-factor",
          "0",
          "--appendonly",
          opts.appendonly ? "yes" : "no",
          "--appendfsync",
          "everysec",
        ],
        { stdio: "ignore" },
      ),
    );
  const nodes: ClusterNode[] = ports.map((port) => {
    const dir = join(root, String(port));
    mkdirSync(dir, { recursive: true });
    return { port, dir, process: launch(port, dir) };
  });
  const cli = async (port: number, ...args: string[]) => (await run("redis-cli", ["-p", String(port), ...args])).stdout;
  const live = () => nodes.filter((n) => n.process.exitCode === null && n.process.signalCode === null);

  const cluster: RedisCluster = {
    nodes,
    seeds: ports.map((p) => `127.0.0.1:${p}`).join(","),
    clusterNodes: ports.map((port) => ({ host: "127.0.0.1", port })),
    cli,
    async masters() {
      for (const n of live()) {
        const out = await cli(n.port, "cluster", "nodes").catch(() => "");
        if (!out) continue;
        return out
          .trim()
          .split("\n")
          .map((line) => line.split(" "))
          .filter((f) => f[2]!.includes("master") && !f[2]!.includes("fail") && f.length > 8)
          .map((f) => ({
            port: Number(f[1]!.split(":")[1]!.split("@")[0]),
            slots: f
              .slice(8)
              .filter((s) => !s.startsWith("["))
              .map((s) => {
                const [a, b] = s.split("-");
                return [Number(a), Number(b ?? a)] as [number, number];
              }),
          }));
      }
      throw new Error("no cluster node answers");
    },
    async masterOf(slot) {
      const m = (await cluster.masters()).find((x) => x.slots.some(([a, b]) => slot >= a && slot <= b));
      if (!m) throw new Error(`no master serves slot ${slot}`);
      return m.port;
    },
    async kill(port) {
      await stopProcess(nodes.find((n) => n.port === port)!.process, "SIGKILL");
    },
    async restart(port) {
      const node = nodes.find((n) => n.port === port)!;
      node.process = launch(port, node.dir);
      await eventually(
        async () => (await cli(port, "ping").catch(() => "")).trim() === "PONG",
        10_000,
        `node ${port} to answer`,
      );
    },
    async waitHealthy(timeoutMs = 30_000) {
      await eventually(
        async () => {
          for (const n of live()) {
            const info = await cli(n.port, "cluster", "info").catch(() => "");
            if (!info.includes("cluster_state:ok")) return false;
            const repl = await cli(n.port, "info", "replication").catch(() => "");
            if (repl.includes("role:slave") && !repl.includes("master_link_status:up")) return false;
          }
          return true;
        },
        timeoutMs,
        "every cluster node to report cluster_state:ok with its replication link up",
      );
    },
    async stop() {
      await Promise.all(nodes.map((n) => stopProcess(n.process, opts.dir ? "SIGTERM" : "SIGKILL")));
      if (!opts.dir) rmSync(root, { recursive: true, force: true });
    },
  };

  runningClusters.add(cluster);
  const stop = cluster.stop;
  cluster.stop = async () => {
    runningClusters.delete(cluster);
    await stop();
  };
  try {
    await Promise.all(
      nodes.map((n) =>
        eventually(
          async () => (await cli(n.port, "ping").catch(() => "")).trim() === "PONG",
          10_000,
          `node ${n.port} to start`,
        ),
      ),
    );
    if (!formed)
      await run("redis-cli", [
        "--cluster",
        "create",
        ...ports.map((p) => `127.0.0.1:${p}`),
        "--cluster-replicas",
        "1",
        "--cluster-yes",
      ]);
    await cluster.waitHealthy();
  } catch (err) {
    await cluster.stop();
    throw err;
  }
  return cluster;
}

/** The clusters this process started and has not stopped yet. */
export const runningClusters = new Set<RedisCluster>();

/**
 * Throws unless the stacks' keys really are spread: every master of every running cluster holds
 * starpost keys, and bots live on as many masters as there are bots (up to all of them), so a
 * single-slot accident cannot pass. Returns bots and keys per master.
 */
export async function assertKeysSpread(): Promise<{ bots: number[]; keys: number[] }[]> {
  if (runningClusters.size === 0) throw new Error("no Redis Cluster is running in this test file");
  const out = [];
  for (const cluster of runningClusters) {
    const bots = [...(await keysPerMaster(cluster, "sp:bot:*")).values()];
    const all = [...(await keysPerMaster(cluster, "sp*")).values()];
    const total = bots.reduce((a, b) => a + b, 0);
    if (all.some((n) => n === 0)) throw new Error(`a master holds no starpost key: keys per master ${all.join(", ")}`);
    if (bots.filter((n) => n > 0).length < Math.min(total, bots.length))
      throw new Error(`bots are not spread over the masters: ${bots.join(", ")}`);
    out.push({ bots, keys: all });
  }
  return out;
}

/**
 * A bot id whose slot the master `port` serves, counting up from `from`: tests create bots with
 * such ids (`token: "<id>:<secret>"`) so that every master owns some.
 */
export function botIdOn(masters: MasterInfo[], index: number, from: number): number {
  const m = masters[index % masters.length]!;
  for (let id = from; ; id++) {
    const slot = botSlot(id);
    if (m.slots.some(([a, b]) => slot >= a && slot <= b)) return id;
  }
}

/** Test files that set STARPOST_TEST_REDIS=cluster run their stacks on a Redis Cluster. */
export const clusterMode = () => process.env.STARPOST_TEST_REDIS === "cluster";

/** How many keys matching `pattern` each master holds now (master port -> count). */
export async function keysPerMaster(cluster: RedisCluster, pattern: string): Promise<Map<number, number>> {
  const out = new Map<number, number>();
  for (const m of await cluster.masters()) {
    const listed = await cluster.cli(m.port, "--scan", "--pattern", pattern);
    out.set(m.port, listed.split("\n").filter((l) => l.trim() !== "").length);
  }
  return out;
}

/**
 * The platform API of a stack on a cluster: bots it creates get ids whose slots go round the
 * masters, so every master owns some bots (a test's keys cannot all land on one node by accident).
 */
export class SpreadingPlatform extends Platform {
  private created = 0;
  private nextId = 8_000_000_000 + Math.floor(Math.random() * 1_000_000_000);

  constructor(
    baseUrl: string,
    token: string,
    private readonly masters: MasterInfo[],
  ) {
    super(baseUrl, token);
  }

  override createBot(opts: { username?: string; first_name?: string; token?: string } = {}) {
    if (opts.token !== undefined) return super.createBot(opts);
    const id = botIdOn(this.masters, this.created++, this.nextId);
    this.nextId = id + 1;
    return super.createBot({ ...opts, token: `${id}:${newSecret()}` });
  }
}
