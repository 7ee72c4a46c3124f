import { z } from "zod";

/**
 * Configuration comes from the environment, is parsed once by `loadConfig` in a service's
 * main.ts, frozen, and passed down. A bad value stops the process with one line naming it.
 */

const bool = (dflt: boolean) =>
  z
    .enum(["true", "false", "1", "0", "yes", "no"])
    .default(dflt ? "true" : "false")
    .transform((v) => v === "true" || v === "1" || v === "yes");
const port = (dflt: number) => z.coerce.number().int().min(0).max(65535).default(dflt);
const url = (dflt: string) => z.url({ protocol: /^https?$/ }).default(dflt);
/** `host:port,host:port,…` -> [{host, port}]; unset means one Redis (REDIS_URL). */
const hostPorts = z
  .string()
  .regex(/^[^\s,:]+:\d{1,5}(,[^\s,:]+:\d{1,5})*$/, "must be host:port[,host:port...]")
  .transform((v) =>
    v
      .split(",")
      .map((hp) => ({ host: hp.slice(0, hp.lastIndexOf(":")), port: Number(hp.slice(hp.lastIndexOf(":") + 1)) })),
  )
  .refine((nodes) => nodes.every((n) => n.port > 0 && n.port < 65536), "a port must be 1-65535")
  .optional();

/**
 * How long /readyz waits for its checks by default (READY_TIMEOUT_MS): under a second with room for
 * a loaded machine, far above a healthy Redis ping (registerOps in @starpost/http says why).
 */
export const READY_TIMEOUT_DEFAULT_MS = 500;

const common = {
  HOST: z.string().min(1).default("127.0.0.1"),
  REDIS_URL: z
    .string()
    .regex(/^rediss?:\/\//, "must start with redis:// or rediss://")
    .default("redis://127.0.0.1:6379"),
  /** Seed nodes of a Redis Cluster; when set, every connection is a cluster client and REDIS_URL is unused. */
  REDIS_CLUSTER_NODES: hostPorts,
  /** An acknowledged write waits until this many replicas have it (WAIT); 0 acknowledges at once. */
  REDIS_WAIT_REPLICAS: z.coerce.number().int().min(0).max(16).default(0),
  /** How long that wait may take before the call fails instead of acknowledging. */
  REDIS_WAIT_TIMEOUT_MS: z.coerce.number().int().min(10).max(60_000).default(2_000),
  /**
   * How long a Redis command may go unanswered before the call fails with 503 and retry_after
   * (a frozen or overloaded Redis); blocking reads, subscribers and BullMQ's connections excepted.
   */
  REDIS_COMMAND_TIMEOUT_MS: z.coerce.number().int().min(100).max(60_000).default(2_000),
  /** How long /readyz waits for its checks (a Redis ping, the services' /readyz) before answering 503. */
  READY_TIMEOUT_MS: z.coerce.number().int().min(100).max(3_000).default(READY_TIMEOUT_DEFAULT_MS),
  /** Every call between services carries it; a service answers nothing but health and metrics without it. */
  INTERNAL_TOKEN: z
    .string({ error: "is required (make one: openssl rand -hex 24)" })
    .min(16, "must be at least 16 characters (make one: openssl rand -hex 24)"),
  /**
   * Where gateway, services and workers share a host (`npm start`): a folder where invoices and
   * updates also listen on a Unix socket (<dir>/<service>.sock), which the gateway and the workers
   * then call instead of INVOICES_URL and UPDATES_URL. Empty: TCP only.
   */
  INTERNAL_SOCKET_DIR: z.string().default(""),
  LOG_LEVEL: z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).default("info"),
};

/**
 * What the gateway allows a client (docs/operations.md says why each default): how long it may take
 * to send a request (the answer, a 50 s long poll, is not counted), how many connections one
 * address may hold, how many parameters one call may carry, how many calls one bot may have active.
 * buildApp takes these values; `GatewayLimits.parse({})` gives the defaults.
 */
export const GatewayLimits = z.object({
  /** Time to send a request's headers, from its first byte (from the connection, for a first request). */
  GATEWAY_HEADERS_TIMEOUT_MS: z.coerce.number().int().min(100).max(600_000).default(30_000),
  /** Time to send a whole request, headers and body, however slowly its bytes arrive. */
  GATEWAY_REQUEST_TIMEOUT_MS: z.coerce.number().int().min(100).max(600_000).default(60_000),
  /** An idle keep-alive connection (no request in progress) is closed after this. */
  GATEWAY_KEEP_ALIVE_TIMEOUT_MS: z.coerce.number().int().min(100).max(600_000).default(75_000),
  /**
   * Open connections per client address; a connection beyond it is closed at once. 0: no bound.
   * Unset: 60 % of the gateway's open-file limit (`ulimit -n`), so one address can never take the
   * descriptors every other client needs (see gatewayConnectionBound).
   */
  GATEWAY_MAX_CONNECTIONS_PER_ADDRESS: z.coerce.number().int().min(0).max(1_000_000).optional(),
  /**
   * Bytes of request bodies the gateway reads for one bot per second (bursts of a second); a bot
   * sending faster is read at this pace (TCP holds the rest back), so its bodies cannot take the
   * gateway's thread from other bots. 0: no bound.
   */
  GATEWAY_BOT_READ_BYTES_PER_S: z.coerce
    .number()
    .int()
    .min(0)
    .max(1e12)
    .default(8 * 1024 * 1024),
  /** Parameters one call may carry (query string and body together); beyond it 413. */
  GATEWAY_MAX_PARAMS: z.coerce.number().int().min(100).max(1_000_000).default(1_000),
  /** Calls one bot may have active at once (long polls aside), the reference's bound; beyond it 429. */
  GATEWAY_BOT_MAX_ACTIVE_REQUESTS: z.coerce.number().int().min(1).max(1_000_000).default(1_000),
});
export type GatewayLimits = z.infer<typeof GatewayLimits>;

export const GatewayConfig = z.object({
  ...common,
  ...GatewayLimits.shape,
  PORT: port(8081),
  PLATFORM_TOKEN: z.string().min(16, "must be at least 16 characters"),
  INVOICES_URL: url("http://127.0.0.1:8082"),
  UPDATES_URL: url("http://127.0.0.1:8083"),
});
export type GatewayConfig = z.infer<typeof GatewayConfig>;

export const InvoicesConfig = z.object({
  ...common,
  INVOICES_PORT: port(8082),
});
export type InvoicesConfig = z.infer<typeof InvoicesConfig>;

export const UpdatesConfig = z.object({
  ...common,
  UPDATES_PORT: port(8083),
  WEBHOOK_ALLOW_PRIVATE_NETWORKS: bool(false),
});
export type UpdatesConfig = z.infer<typeof UpdatesConfig>;

export const WorkerConfig = z.object({
  ...common,
  WORKER_PORT: port(8084),
  /** Bots drained at once by one worker process. */
  WORKER_CONCURRENCY: z.coerce.number().int().min(1).max(10_000).default(64),
  WEBHOOK_ALLOW_PRIVATE_NETWORKS: bool(false),
  WEBHOOK_TELEGRAM_HEADER_ALIAS: bool(true),
  INVOICES_URL: url("http://127.0.0.1:8082"),
  UPDATES_URL: url("http://127.0.0.1:8083"),
  /** PEM bundle https webhooks are verified against (undici ignores the system store by itself). */
  WEBHOOK_CA_FILE: z.string().min(1).default("/etc/ssl/certs/ca-certificates.crt"),
  /** How long a webhook may take to answer, body included (one deadline per attempt), like the official server's 60 s. */
  WEBHOOK_TIMEOUT_MS: z.coerce.number().int().min(100).max(600_000).default(60_000),
  /** A 2xx webhook answer longer than this is ignored (its method not run), however it is framed. */
  WEBHOOK_REPLY_MAX_BYTES: z.coerce
    .number()
    .int()
    .min(1024)
    .max(64 * 1024 * 1024)
    .default(1024 * 1024),
  /** Bytes of 2xx webhook answers one worker process holds at once; an answer past it is ignored. */
  WEBHOOK_REPLY_BUDGET_BYTES: z.coerce
    .number()
    .int()
    .min(64 * 1024)
    .max(4 * 1024 * 1024 * 1024)
    .default(32 * 1024 * 1024),
  /** A drain job whose attempt is in flight this long on a crowded shard moves to the retry timer's slots. */
  WEBHOOK_SLOW_MS: z.coerce.number().int().min(50).max(600_000).default(1_000),
  /** Multiplies every retry delay (2, 4, 8 … s, capped at 60–120 s); 1 is the reference schedule. */
  WEBHOOK_BACKOFF_SCALE: z.coerce.number().min(0).max(10).default(1),
  /** How often each worker looks for bots with pending updates but no drain job (crashes, races). */
  WEBHOOK_RECONCILE_MS: z.coerce.number().int().min(100).max(3_600_000).default(5_000),
  /** BullMQ job lock: a killed worker's drain is taken over after about lock + stalled interval. */
  WORKER_LOCK_MS: z.coerce.number().int().min(1_000).max(600_000).default(30_000),
  WORKER_STALLED_INTERVAL_MS: z.coerce.number().int().min(500).max(600_000).default(15_000),
  /** Failing webhook bots whose oldest pending update a /metrics scrape reads (one XRANGE each). */
  METRICS_PENDING_SAMPLE: z.coerce.number().int().min(0).max(10_000).default(100),
});
export type WorkerConfig = z.infer<typeof WorkerConfig>;

/**
 * Where a service's Redis connections go, from its config (see createRedis). `sendsWait`: the
 * connection registerReplicaWait sends WAIT on; with REDIS_WAIT_REPLICAS > 0 its command timeout
 * is REDIS_WAIT_TIMEOUT_MS + REDIS_COMMAND_TIMEOUT_MS, so a WAIT gets its whole wait and then the
 * usual time to answer rather than being cut at REDIS_COMMAND_TIMEOUT_MS.
 */
export function redisTarget(
  config: {
    REDIS_URL: string;
    REDIS_CLUSTER_NODES?: { host: string; port: number }[] | undefined;
    REDIS_COMMAND_TIMEOUT_MS?: number;
    REDIS_WAIT_REPLICAS?: number;
    REDIS_WAIT_TIMEOUT_MS?: number;
  },
  { sendsWait = false }: { sendsWait?: boolean } = {},
) {
  const waitMs = sendsWait && (config.REDIS_WAIT_REPLICAS ?? 0) > 0 ? (config.REDIS_WAIT_TIMEOUT_MS ?? 0) : 0;
  return {
    url: config.REDIS_URL,
    clusterNodes: config.REDIS_CLUSTER_NODES,
    ...(config.REDIS_COMMAND_TIMEOUT_MS === undefined
      ? {}
      : { commandTimeoutMs: config.REDIS_COMMAND_TIMEOUT_MS + waitMs }),
  };
}

/** REDIS_WAIT_REPLICAS and its timeout, for registerReplicaWait. */
export function replicaWait(config: { REDIS_WAIT_REPLICAS: number; REDIS_WAIT_TIMEOUT_MS: number }) {
  return { replicas: config.REDIS_WAIT_REPLICAS, timeoutMs: config.REDIS_WAIT_TIMEOUT_MS };
}

/** Every variable any service reads, for checking the compose file. */
export const ALL_CONFIG_SCHEMAS = {
  gateway: GatewayConfig,
  invoices: InvoicesConfig,
  updates: UpdatesConfig,
  "webhook-worker": WorkerConfig,
};

export class ConfigError extends Error {}

/** Parses the environment; throws a ConfigError whose message is one line naming the variable. */
export function parseConfig<S extends z.ZodObject>(
  schema: S,
  env: Record<string, string | undefined>,
): Readonly<z.infer<S>> {
  const present = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ""));
  const parsed = schema.safeParse(present);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const name = String(issue.path[0] ?? "environment");
    throw new ConfigError(`invalid environment variable ${name}: ${issue.message}`);
  }
  return Object.freeze(parsed.data);
}

/** For main.ts: parse or print the one line and exit. */
export function loadConfig<S extends z.ZodObject>(service: string, schema: S, env = process.env): Readonly<z.infer<S>> {
  try {
    return parseConfig(schema, env);
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`starpost ${service}: ${err.message}\n`);
      process.exit(1);
    }
    throw err;
  }
}
