import { createHash, randomBytes } from "node:crypto";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { createLogger, createRedis, type Redis } from "@starpost/runtime";
import { keys, WEBHOOK_BOT_SHARDS } from "@starpost/shared";
import {
  botClient,
  eventually,
  Platform,
  REPO_ROOT,
  startProcessStack,
  startReceiver,
  startRedis,
  userMessage,
  waitingPoll,
  type ProcessStack,
  type Receiver,
  type RedisServer,
} from "@starpost/testkit";

/**
 * The Redis commands each operation costs, counted with MONITOR on the stack's private
 * redis-server, and the table docs/architecture.md shows ("Redis commands per operation").
 *
 * Each operation runs between two markers the test's own connection sends (`ECHO
 * starpost-count-begin-<n>` and `…-end-<n>`); the end marker goes once the operation's last
 * command has run (its answer, the request log entry, a finished drain job), and
 * the count is what MONITOR showed between the markers, less the background (`classify` says
 * which commands are background, and why; docs/architecture.md lists them too).
 * A script call (EVALSHA) is one command; the commands it runs show in MONITOR with the source
 * "lua" and are not counted. Each member of a pipeline or MULTI counts.
 *
 * Everything runs twice: a warm-up pass, then the measured one. The warm-up loads every script
 * (a first EVALSHA answers NOSCRIPT and is sent again as EVAL), fills the gateway's bot cache,
 * subscribes the bots' channels and lets each webhook see its first success, so the measured
 * pass shows the steady state.
 *
 * A count that changed fails the test and prints every operation's commands, counted and
 * excluded, and the table's rows as they should read; the doc's table is checked against the
 * same numbers and commands, so the two cannot drift apart.
 */

/** The measured counts; docs/architecture.md's table says the same (checked below). */
const EXPECTED = {
  sendInvoice: 2,
  push: 1,
  getUpdatesEmpty: 1,
  getUpdatesWoken: 2,
  payment: 3,
  paymentGetUpdates: 1,
  webhookPush: 2,
  webhookDelivery: 3,
  setWebhook: 3,
  deleteWebhook: 3,
};
type Operation = keyof typeof EXPECTED;

/** The connections whose commands are never counted: the test's own (markers, waits, MONITOR). */
const OWN_ROLE = "redis-count";

/** The service a connection belongs to, by the name each one gives itself (CLIENT SETNAME). */
function serviceOf(name: string): string {
  if (name === `starpost:${OWN_ROLE}`) return "test";
  const role = /^starpost:([a-z]+)/.exec(name)?.[1];
  if (role === "worker") return "webhook-worker";
  if (role === "gateway" || role === "updates" || role === "invoices") return role;
  // BullMQ names its workers' blocking connections after the queue: sp:q:<base64 of "{dq-N}">.
  if (name.startsWith(`${keys.queuePrefix()}:`)) return "webhook-worker";
  return `unknown (${name || "no name"})`;
}

/** The name of every script starpost and BullMQ run, by SHA-1, to label EVALSHA commands. */
function scriptNames(): Map<string, string> {
  const names = new Map<string, string>();
  const shared = ["packages/update-log/src/lua", "packages/runtime/src/lua"].map((d) => join(REPO_ROOT, d));
  // The bridge's loader (packages/runtime/src/lua/bridge.ts): `--!include x` is replaced by x,
  // found beside the script or in the update log's or the runtime's folder.
  const source = (dir: string, file: string): string =>
    readFileSync(join(dir, file), "utf8").replace(/^--!include (\S+)$/gm, (_, included: string) =>
      source(
        [dir, ...shared].find((d) => existsSync(join(d, included)))!,
        included,
      ),
    );
  for (const root of ["packages", "services"]) {
    for (const name of readdirSync(join(REPO_ROOT, root))) {
      const dir = join(REPO_ROOT, root, name, "src/lua");
      if (!existsSync(dir)) continue;
      for (const file of readdirSync(dir).filter((f) => f.endsWith(".lua")))
        names.set(createHash("sha1").update(source(dir, file)).digest("hex"), file);
    }
  }
  // BullMQ defines its scripts with ioredis's defineCommand: EVALSHA of the content's SHA-1.
  const fromUpdateLog = createRequire(join(REPO_ROOT, "packages/update-log/package.json"));
  const bullmq = fromUpdateLog("bullmq/dist/cjs/scripts/index.js") as Record<string, { name: string; content: string }>;
  for (const script of Object.values(bullmq))
    names.set(createHash("sha1").update(script.content).digest("hex"), `bullmq ${script.name}`);
  return names;
}
const SCRIPTS = scriptNames();

/** One command as MONITOR showed it, with the commands its script ran (source "lua"). */
interface Seen {
  args: string[];
  source: string;
  lua: string[][];
}

/** A command of a window: the service that sent it, its label, and why it is not counted (if not). */
interface Command {
  service: string;
  label: string;
  excluded?: string;
}

const WHY = {
  connection: "connection upkeep",
  subscription: "subscription bookkeeping (kept while a bot has listeners, and 60 s after)",
  reconciler: "the reconciler's tick (one GET per worker per WEBHOOK_RECONCILE_MS)",
  bullmqTimer: "BullMQ's timers (stalled-job check, lock extension)",
  bullmqFetch: "BullMQ's fetch loop (waits on the queue's marker; a moveToActive that took no job)",
  ownEndpoints: "the process's copy of the own-endpoints hash, read again when older than 5 s",
};

/** Commands that keep a connection going, never an operation's. */
const CONNECTION_COMMANDS = new Set(["PING", "INFO", "CLIENT", "SELECT", "HELLO", "READONLY", "AUTH", "QUIT", "ECHO"]);
const SUBSCRIPTION_COMMANDS = new Set([
  "SUBSCRIBE",
  "UNSUBSCRIBE",
  "SSUBSCRIBE",
  "SUNSUBSCRIBE",
  "PSUBSCRIBE",
  "PUNSUBSCRIBE",
]);

/** A key with its bot id, shard and query id taken out: `sp:pcq:{b:7000000001}:123` -> `sp:pcq:{b}`. */
const keyLabel = (key: string) => key.replace(/\{(b|dq|wb)[:-]\d+\}/, "{$1}").replace(/:\d+$/, "");

/** The label of a command, and the reason it is background when it is, from what MONITOR showed. */
function classify(seen: Seen, from: string): Command {
  const [name = "", ...args] = seen.args;
  const command = name.toUpperCase();
  if (command === "EVALSHA" || command === "EVAL") {
    const script =
      command === "EVALSHA"
        ? (SCRIPTS.get(args[0]!) ?? `script ${args[0]!.slice(0, 8)}`)
        : "(its source, after NOSCRIPT)";
    const label = `${command} ${script}`;
    if (script === "bullmq moveStalledJobsToWait" || script.startsWith("bullmq extendLock"))
      return { service: from, label, excluded: WHY.bullmqTimer };
    // A moveToActive that took a job locks it (SET <job>:lock) in its script.
    if (script === "bullmq moveToActive" && !seen.lua.some((c) => c[0] === "SET" && c[1]?.endsWith(":lock")))
      return { service: from, label, excluded: WHY.bullmqFetch };
    return { service: from, label };
  }
  const label = args[0] === undefined ? command : `${command} ${keyLabel(args[0])}`;
  if (CONNECTION_COMMANDS.has(command)) return { service: from, label, excluded: WHY.connection };
  if (SUBSCRIPTION_COMMANDS.has(command)) return { service: from, label, excluded: WHY.subscription };
  if (command === "GET" && args[0] === keys.sweepEpoch()) return { service: from, label, excluded: WHY.reconciler };
  if (command === "BZPOPMIN" && args[0]?.endsWith(":marker"))
    return { service: from, label, excluded: WHY.bullmqFetch };
  if (command === "HGETALL" && args[0] === keys.ownEndpoints())
    return { service: from, label, excluded: WHY.ownEndpoints };
  return { service: from, label };
}

/** MONITOR on the private redis-server, and the test's connection that sends the markers. */
class CommandCounter {
  private readonly seen: Seen[] = [];
  private readonly names = new Map<string, string>();
  private next = 0;
  /**
   * The worker has swept every webhook bot since the sweep epoch was last raised (each process
   * that schedules drains raises it when it starts; the worker sweeps when it starts and when it
   * sees the epoch change, shard by shard up to the last).
   */
  swept = false;

  private constructor(
    readonly side: Redis,
    private readonly monitor: Redis,
  ) {
    monitor.on("monitor", (_time: string, args: string[], source: string) => {
      // A script's commands follow its EVALSHA at once (a script runs alone).
      if (source === "lua") return void this.seen.at(-1)?.lua.push([args[0]!.toUpperCase(), ...args.slice(1)]);
      this.seen.push({ args, source, lua: [] });
      const [command = "", key] = [args[0]?.toUpperCase(), args[1]];
      if (command === "INCR" && key === keys.sweepEpoch()) this.swept = false;
      if (command === "SSCAN" && key === keys.webhookBots(WEBHOOK_BOT_SHARDS - 1)) this.swept = true;
    });
  }

  static async start(url: string): Promise<CommandCounter> {
    const connect = () => createRedis({ url, logger: createLogger("test", "silent"), role: OWN_ROLE });
    const side = connect();
    const monitor = await side.monitor();
    return new CommandCounter(side, monitor);
  }

  private markerAt(text: string, from = 0): number {
    for (let i = from; i < this.seen.length; i++) {
      const { args } = this.seen[i]!;
      if (args[0]?.toUpperCase() === "ECHO" && args[1] === text) return i;
    }
    return -1;
  }

  /**
   * Runs `op` between the markers and answers every command MONITOR showed between them, each
   * with its service and label. `op` gets `saw`, true once a command (its arguments) since the
   * begin marker matches.
   */
  async measure(op: (saw: (match: (args: string[]) => boolean) => boolean) => Promise<void>): Promise<Command[]> {
    const n = ++this.next;
    const [begin, end] = [`starpost-count-begin-${n}`, `starpost-count-end-${n}`];
    await this.side.echo(begin);
    await eventually(() => this.markerAt(begin) >= 0, 10_000, `MONITOR to show ${begin}`);
    const from = this.markerAt(begin);
    await op((match) => this.seen.slice(from + 1).some((s) => match(s.args)));
    await this.side.echo(end);
    await eventually(() => this.markerAt(end, from) >= 0, 10_000, `MONITOR to show ${end}`);
    const window = this.seen.splice(0, this.markerAt(end, from) + 1).slice(from + 1, -1);
    if (window.some((s) => !this.names.has(s.source))) await this.refreshNames();
    // The test's own commands (the waits on Redis' state) are left out altogether.
    return window
      .map((s) => ({ s, service: serviceOf(this.names.get(s.source) ?? "") }))
      .filter(({ service }) => service !== "test")
      .map(({ s, service }) => classify(s, service));
  }

  /** The client name of every connection, by the address MONITOR shows as a command's source. */
  async refreshNames(): Promise<void> {
    const list = (await this.side.client("LIST")) as string;
    for (const line of list.split("\n")) {
      const addr = /\baddr=(\S+)/.exec(line)?.[1];
      if (addr) this.names.set(addr, /\bname=(\S*)/.exec(line)?.[1] ?? "");
    }
  }

  async stop(): Promise<void> {
    this.monitor.disconnect();
    await this.side.quit();
  }
}

/** A bot as a Bot API client uses it, over plain HTTP to the gateway. */
class TestBot {
  private calls = 0;
  readonly call: ReturnType<typeof botClient>;

  constructor(
    readonly id: number,
    token: string,
    gatewayUrl: string,
    private readonly redis: Redis,
  ) {
    this.call = botClient(gatewayUrl, token);
  }

  /**
   * A Bot API call, resolved once the gateway has written its request log entry too (the entry
   * follows the answer), so no operation's entry falls into the next one's count.
   */
  async request(method: string, params: Record<string, unknown> = {}) {
    const res = await this.call(method, params);
    if (!res.body?.ok) throw new Error(`${method} failed: ${JSON.stringify(res.body)}`);
    // The log keeps a bot's newest 100 entries: past them the length says nothing.
    const calls = ++this.calls;
    if (calls >= 100) throw new Error("a test bot makes fewer than 100 calls");
    await eventually(
      async () => (await this.redis.llen(keys.requestLog(this.id))) >= calls,
      10_000,
      `the request log entry of ${method}`,
    );
    return res.body.result;
  }

  /** Reads and confirms everything pending, so the log is empty. */
  async confirmAll(): Promise<void> {
    const updates = (await this.request("getUpdates", { timeout: 0 })) as { update_id: number }[];
    if (updates.length > 0) await this.request("getUpdates", { offset: updates.at(-1)!.update_id + 1, timeout: 0 });
  }
}

let redisServer: RedisServer;
let counter: CommandCounter;
let stack: ProcessStack;
let platform: Platform;
let receiver: Receiver;
const errorLines: string[] = [];

beforeAll(async () => {
  redisServer = await startRedis();
  // MONITOR from before the services start, so the worker's first sweeps are seen (`swept`).
  counter = await CommandCounter.start(redisServer.url);
  const platformToken = `count-${randomBytes(16).toString("hex")}`;
  stack = await startProcessStack({
    redisUrl: redisServer.url,
    workers: 1,
    env: {
      WEBHOOK_ALLOW_PRIVATE_NETWORKS: "true",
      INTERNAL_TOKEN: randomBytes(24).toString("hex"),
      PLATFORM_TOKEN: platformToken,
      LOG_LEVEL: "warn",
    },
    onLine: (name, line) => {
      if (/"level":(50|60)/.test(line)) errorLines.push(`[${name}] ${line}`);
    },
  });
  platform = new Platform(stack.gatewayUrl, platformToken);
  receiver = await startReceiver();
}, 120_000);

afterAll(async () => {
  await receiver?.close();
  await stack?.stop();
  await counter?.stop();
  await redisServer?.stop();
  expect(errorLines).toEqual([]);
});

async function newBot(): Promise<TestBot> {
  const bot = await platform.createBot();
  return new TestBot(bot.id, bot.token, stack.gatewayUrl, counter.side);
}

const CHAT = 5001;
const USER = { id: CHAT, first_name: "Ann" };

/** One pass over every operation: the commands of each (counted and excluded), in the order they ran. */
async function pass(bots: { polling: TestBot; hooked: TestBot; settings: TestBot }) {
  const { polling, hooked, settings } = bots;
  const side = counter.side;
  const out = {} as Record<Operation, Command[]>;

  // (a) sendInvoice in Stars.
  let messageId = 0;
  out.sendInvoice = await counter.measure(async () => {
    const message = (await polling.request("sendInvoice", {
      chat_id: CHAT,
      title: "Coffee",
      description: "A cup",
      payload: "order",
      currency: "XTR",
      prices: [{ label: "Coffee", amount: 5 }],
    })) as { message_id: number };
    messageId = message.message_id;
  });

  // (b) A platform push of one update to a polling bot.
  out.push = await counter.measure(async () => {
    const res = await platform.pushUpdate(polling.id, userMessage(CHAT, "hello"));
    if (res.status !== 200) throw new Error(`push failed: ${JSON.stringify(res.body)}`);
  });
  await polling.confirmAll();

  // (c) getUpdates with timeout 0 on an empty log.
  out.getUpdatesEmpty = await counter.measure(async () => {
    expect(await polling.request("getUpdates", { timeout: 0 })).toEqual([]);
  });

  // (d) A held getUpdates woken by a push: the poll's side is the window less the push's commands.
  const woken = await counter.measure(async () => {
    // An answered poll's claim stays until the next poll's claim replaces it: wait for this one's.
    const previous = await side.get(keys.pollOwner(polling.id));
    const poll = polling.request("getUpdates", { timeout: 5 });
    await waitingPoll(side, polling.id, previous);
    await platform.pushUpdate(polling.id, userMessage(CHAT, "wake up"));
    expect(await poll).toHaveLength(1);
  });
  out.getUpdatesWoken = woken.filter((c) => c.service !== "updates");
  const pushWhilePolled = woken.filter((c) => c.service === "updates");
  await polling.confirmAll();

  // (e) A payment: the platform's pay call, the bot's answer, the settlement. The getUpdates that
  // tells the bot of the query is counted on its own.
  let paying!: Promise<{ status: number; body: any }>;
  const started = await counter.measure(async () => {
    paying = platform.call("POST", `/bots/${polling.id}/payments`, {
      chat_id: CHAT,
      message_id: messageId,
      user: USER,
    });
    await eventually(async () => (await side.xlen(keys.updateLog(polling.id))) === 1, 10_000, "the pre_checkout_query");
  });
  let queryId = "";
  out.paymentGetUpdates = await counter.measure(async () => {
    const updates = (await polling.request("getUpdates", { timeout: 0 })) as any[];
    queryId = updates[0].pre_checkout_query.id;
  });
  const answered = await counter.measure(async () => {
    await polling.request("answerPreCheckoutQuery", { pre_checkout_query_id: queryId, ok: true });
    const paid = await paying;
    expect(paid.body.result).toMatchObject({ status: "paid" });
  });
  out.payment = [...started, ...answered];
  await polling.confirmAll();

  // (f) One update delivered to a webhook, from the push to the drain's end (its job finished:
  // the confirmation closed the drain epoch, so nothing looks at the log after it).
  const delivered = receiver.received.length;
  const delivery = await counter.measure(async () => {
    await platform.pushUpdate(hooked.id, userMessage(CHAT, "to the webhook"));
    await eventually(() => receiver.received.length > delivered, 10_000, "the webhook's request");
    // Its job's keys (`sp:q:{dq-N}:bot-<id>-<ticket>…`) go when BullMQ has finished it.
    await eventually(
      async () => (await counter.side.keys(`sp:q:*:bot-${hooked.id}-*`)).length === 0,
      10_000,
      "the job's end",
    );
  });
  out.webhookPush = delivery.filter((c) => c.service === "updates");
  out.webhookDelivery = delivery.filter((c) => c.service !== "updates");

  // (g) setWebhook with a URL (at most once a second per bot: the last one's limit expires first), then deleteWebhook.
  await eventually(
    async () => (await side.exists(keys.webhookSetLimit(settings.id))) === 0,
    10_000,
    "setWebhook's rate limit",
  );
  out.setWebhook = await counter.measure(async () => {
    await settings.request("setWebhook", { url: receiver.url });
  });
  out.deleteWebhook = await counter.measure(async () => {
    await settings.request("deleteWebhook");
  });
  return { out, pushWhilePolled };
}

/** Counted commands as the doc lists them: "`LABEL` (service)", in order. */
const listed = (commands: Command[]) => commands.filter((c) => !c.excluded).map((c) => `\`${c.label}\` (${c.service})`);

/** The doc's table, operation -> { count, commands }: the rows of the section "## Redis commands per operation". */
function docTable(): Map<string, { count: number; commands: string[] }> {
  const doc = readFileSync(join(REPO_ROOT, "docs/architecture.md"), "utf8");
  const start = doc.indexOf("\n## Redis commands per operation\n");
  const rows = new Map<string, { count: number; commands: string[] }>();
  if (start === -1) return rows;
  const next = doc.indexOf("\n## ", start + 1);
  for (const line of doc.slice(start, next === -1 ? undefined : next).split("\n")) {
    // | `operation` … | count | `COMMAND key` (service), … | target |
    const cells = line.split("|").map((c) => c.trim());
    const op = /^`(\w+)`/.exec(cells[1] ?? "")?.[1];
    if (!op || !/^\d+$/.test(cells[2] ?? "")) continue;
    rows.set(op, { count: Number(cells[2]), commands: cells[3]!.match(/`[^`]+` \([\w-]+\)/g) ?? [] });
  }
  return rows;
}

it(
  "counts the Redis commands of each operation, as docs/architecture.md's table says",
  { timeout: 120_000 },
  async () => {
    const polling = await newBot();
    const hooked = await newBot();
    const settings = await newBot();
    await platform.putChat(polling.id, { id: CHAT, type: "private", first_name: USER.first_name });
    await hooked.request("setWebhook", { url: receiver.url });

    await pass({ polling, hooked, settings });
    // No sweep of the webhook bots may fall into a count: the worker's last one came after the
    // last raise of the epoch (in practice long before this point: at the processes' start).
    await eventually(() => counter.swept, 15_000, "the worker's sweep of the webhook bots");
    const { out: measured, pushWhilePolled } = await pass({ polling, hooked, settings });

    const counted = (commands: Command[]) => commands.filter((c) => !c.excluded);
    const ops = Object.keys(EXPECTED) as Operation[];
    const counts = Object.fromEntries(ops.map((op) => [op, counted(measured[op]).length]));
    const lists = Object.fromEntries(ops.map((op) => [op, listed(measured[op])]));
    const doc = docTable();
    const docCounts = Object.fromEntries([...doc].map(([op, row]) => [op, row.count]));
    const sorted = (l: string[]) => [...l].sort();
    const docDiffers = ops.some(
      (op) => JSON.stringify(sorted(doc.get(op)?.commands ?? [])) !== JSON.stringify(sorted(lists[op]!)),
    );
    if (
      JSON.stringify(counts) !== JSON.stringify(EXPECTED) ||
      JSON.stringify(docCounts) !== JSON.stringify(EXPECTED) ||
      docDiffers
    ) {
      const report = ops.map((op) =>
        [
          `${op}: ${counts[op]} counted (EXPECTED ${EXPECTED[op]}, the doc ${doc.get(op)?.count ?? "-"})`,
          ...measured[op].map(
            (c) => `    ${c.excluded ? "-" : "+"} ${c.service}: ${c.label}${c.excluded ? `  [${c.excluded}]` : ""}`,
          ),
          `  row: | \`${op}\` | ${counts[op]} | ${lists[op]!.join(", ")} |`,
        ].join("\n"),
      );
      console.log(`Redis commands per operation (+ counted, - excluded):\n${report.join("\n")}`);
    }
    expect(counts).toEqual(EXPECTED);
    // The push that wakes the held poll costs what a push costs: the rest is the poll's.
    expect(counted(pushWhilePolled)).toEqual(counted(measured.push));
    expect(docCounts, 'docs/architecture.md, "Redis commands per operation": the counts').toEqual(EXPECTED);
    for (const op of ops)
      expect(sorted(doc.get(op)!.commands), `docs/architecture.md, "Redis commands per operation": ${op}`).toEqual(
        sorted(lists[op]!),
      );
  },
);
