import { spawn, type ChildProcess } from "node:child_process";
import { createWriteStream, mkdirSync } from "node:fs";
import { get } from "node:http";
import { basename, join } from "node:path";
import { createInterface } from "node:readline";
import { readCompose, readImageEnv, REPO_ROOT, type ComposeService } from "./compose-file.ts";
import { stopProcess, track } from "./child-processes.ts";
import { crashReason, REASON_LINES } from "./crash-reason.ts";
import { freePort } from "./redis-server.ts";
import type { Supervisor } from "./supervisor.ts";

/**
 * Runs the services of docker-compose.yml as local OS processes: the same entry points, the same
 * environment, with container host names rewritten to 127.0.0.1 and every port made free. Used by
 * `npm start`, the end-to-end suite and the benchmarks.
 */

export interface ServiceProcess {
  /** e.g. "gateway" or "webhook-worker-2". */
  name: string;
  service: string;
  port: number;
  env: Record<string, string>;
  child: ChildProcess;
}

export interface ProcessStackOptions {
  redisUrl: string;
  /** values for the compose file's `${VAR}` references and overrides of its environment. */
  env?: Record<string, string>;
  /** variables the compose file does not set, given to every process (test knobs). */
  extraEnv?: Record<string, string>;
  /** extra node flags for every process (e.g. --cpu-prof when profiling a benchmark). */
  nodeArgs?: string[];
  /** run the bundles `pnpm run build` wrote to this folder with plain node (default: the sources under tsx). */
  dist?: string;
  /** the gateway's port (default: a free one). */
  gatewayPort?: number;
  /** webhook-worker replicas (default: the compose file's deploy.replicas). */
  workers?: number;
  /**
   * Replicas of other services (e.g. `{ gateway: 2, updates: 2 }`). Replica n of a service calls
   * replica n of the services it names (round robin when they have fewer), so calls cross replicas.
   */
  replicas?: Record<string, number>;
  /** each process's output is appended to `<logDir>/<name>.log`. */
  logDir?: string;
  /** every output line of every process, for tests that read the logs. */
  onLine?: (name: string, line: string) => void;
  /** restarts processes that die, as compose's `restart: unless-stopped` (npm start, the chaos suite). */
  supervisor?: Supervisor;
  /**
   * Each process in a process group of its own (npm start): a Ctrl-C in the terminal reaches the
   * starter only, which stops them in order (gateway, services, Redis last), so no service sees
   * Redis go before it has closed its connections.
   */
  ownProcessGroups?: boolean;
}

export interface ProcessStack {
  gatewayUrl: string;
  /** every gateway replica's URL, the first one's first. */
  gatewayUrls: string[];
  processes: ServiceProcess[];
  /** starts another replica of a service (e.g. a webhook worker). */
  addReplica(service: string): Promise<ServiceProcess>;
  /**
   * Kills a process (SIGKILL) if it runs and starts it again on its port, `env` changed (e.g. a
   * test's crash point removed); resolves when it is ready.
   */
  restart(name: string, env?: Record<string, string | undefined>): Promise<ServiceProcess>;
  stop(): Promise<void>;
  /** why a process stopped, in one line, from the last lines it wrote (see crashReason). */
  reason(name: string): string | undefined;
}

/** A process that exited or never answered /readyz while the stack started; `reason` is one line. */
export class StartFailure extends Error {
  constructor(
    readonly process: string,
    readonly reason: string,
  ) {
    super(`${process} did not start: ${reason}`);
    this.name = "StartFailure";
  }
}

const isPortVar = (k: string) => /(^|_)PORT$/.test(k);

function order(services: ComposeService[]): ComposeService[] {
  const done = new Set<string>();
  const out: ComposeService[] = [];
  const visit = (s: ComposeService) => {
    if (done.has(s.name)) return;
    done.add(s.name);
    for (const d of s.dependsOn) {
      const dep = services.find((x) => x.name === d);
      if (dep) visit(dep);
    }
    out.push(s);
  };
  services.forEach(visit);
  return out;
}

/**
 * GET /readyz answered 200 (node:http, not fetch: the starter stays as small as a bare node). A
 * probe unanswered within a second counts as not ready: the port may be another program's, which
 * accepts the connection and never answers.
 */
function probe(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const req = get({ host: "127.0.0.1", port, path: "/readyz", agent: false, timeout: 1_000 }, (res) => {
      res.resume();
      resolve(res.statusCode === 200);
    });
    req.once("timeout", () => req.destroy());
    req.once("error", () => resolve(false));
  });
}

/** How long a starting process may take to answer /readyz. */
const READY_WITHIN_MS = 30_000;

/** Resolves once a child's output is all read (its "close"), so its last lines are in. */
const outputRead = new WeakMap<ChildProcess, Promise<void>>();

async function waitReady(port: number, child: ChildProcess, name: string, reason: () => string | undefined) {
  const exited = () => child.exitCode !== null || child.signalCode !== null;
  const failure = async () => {
    await Promise.race([outputRead.get(child), new Promise((r) => setTimeout(r, 1_000))]);
    return new StartFailure(name, reason() ?? `exited (${child.signalCode ?? `code ${child.exitCode}`})`);
  };
  const deadline = Date.now() + READY_WITHIN_MS;
  while (Date.now() < deadline) {
    if (exited()) throw await failure();
    const ready = await probe(port);
    // Exited meanwhile: an answer came from another program on the port.
    if (exited()) throw await failure();
    if (ready) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new StartFailure(name, `did not answer /readyz on port ${port} within ${READY_WITHIN_MS / 1000} s`);
}

export async function startProcessStack(opts: ProcessStackOptions): Promise<ProcessStack> {
  const overrides = opts.env ?? {};
  const services = order(readCompose({ ...process.env, ...overrides }));
  const hostOf = new Map<string, string[]>(); // "updates:8083" -> ["127.0.0.1:<port of replica 1>", ...]
  const processes: ServiceProcess[] = [];
  const counts = new Map<string, number>();
  if (opts.logDir) mkdirSync(opts.logDir, { recursive: true });

  const rewrite = (value: string, n: number) =>
    value
      .replace(/^redis:\/\/redis:6379$/, opts.redisUrl)
      .replace(/^(https?:\/\/)([a-z-]+):(\d+)/, (m, scheme: string, host: string, port: string) => {
        const local = hostOf.get(`${host}:${port}`);
        return local ? `${scheme}${local[(n - 1) % local.length]}` : m;
      });

  const supervisor = opts.supervisor;
  // NODE_ENV and node's memory settings, as the image sets them (see readImageEnv).
  const imageEnv = readImageEnv();
  const entries = new Map<string, string[]>();
  /** each process's last lines, for the reason it stopped. */
  const recent = new Map<string, string[]>();
  const reason = (name: string) => crashReason(recent.get(name) ?? []);
  /** `entry`: the node arguments that run the service (its bundle, or its source through tsx). */
  const spawnChild = (proc: ServiceProcess, entry: string[]): ChildProcess => {
    entries.set(proc.name, entry);
    const child = track(
      spawn(process.execPath, [...(opts.nodeArgs ?? []), ...entry], {
        cwd: REPO_ROOT,
        env: { PATH: process.env.PATH ?? "", ...imageEnv, ...proc.env },
        // The IPC channel: a service whose starter is gone, however it ended, stops (onShutdown).
        stdio: ["ignore", "pipe", "pipe", "ipc"],
        detached: opts.ownProcessGroups === true,
      }),
    );
    const file = opts.logDir ? createWriteStream(`${opts.logDir}/${proc.name}.log`, { flags: "a" }) : undefined;
    for (const stream of [child.stdout!, child.stderr!]) {
      createInterface({ input: stream }).on("line", (line) => {
        file?.write(line + "\n");
        const lines = recent.get(proc.name) ?? [];
        recent.set(proc.name, lines);
        lines.push(line);
        if (lines.length > REASON_LINES) lines.shift();
        opts.onLine?.(proc.name, line);
      });
    }
    child.once("close", () => file?.end());
    outputRead.set(child, new Promise((resolve) => child.once("close", () => setImmediate(resolve))));
    return child;
  };

  const launch = async (svc: ComposeService): Promise<ServiceProcess> => {
    const n = (counts.get(svc.name) ?? 0) + 1;
    counts.set(svc.name, n);
    const name = svc.replicas > 1 || n > 1 ? `${svc.name}-${n}` : svc.name;
    const env: Record<string, string> = {};
    let port = 0;
    for (const [k, v] of Object.entries(svc.environment)) {
      if (isPortVar(k)) {
        port = svc.name === "gateway" && opts.gatewayPort && n === 1 ? opts.gatewayPort : await freePort();
        const key = `${svc.name}:${v}`;
        hostOf.set(key, [...(hostOf.get(key) ?? []), `127.0.0.1:${port}`]);
        env[k] = String(port);
      } else if (v !== "") env[k] = rewrite(v, n);
      // An empty value (`${VAR:-}` unset) means the service's default, as the services parse it:
      // left out, so a test's extraEnv knob for it applies.
    }
    env.HOST = "127.0.0.1";
    for (const [k, v] of Object.entries(overrides)) if (k in env && !isPortVar(k)) env[k] = v;
    const entry = opts.dist ? [join(opts.dist, basename(svc.bundle))] : ["--import", "tsx", svc.entry];
    const proc: ServiceProcess = {
      name,
      service: svc.name,
      port,
      env: { ...opts.extraEnv, ...env },
      child: undefined!,
    };
    proc.child = spawnChild(proc, entry);
    processes.push(proc);
    supervisor?.watch(name, proc.child, () => (proc.child = spawnChild(proc, entry)));
    await waitReady(port, proc.child, name, () => reason(name));
    return proc;
  };

  try {
    for (const svc of services) {
      const replicas =
        svc.name === "webhook-worker" && opts.workers !== undefined
          ? opts.workers
          : (opts.replicas?.[svc.name] ?? svc.replicas);
      await Promise.all(Array.from({ length: replicas }, () => launch(svc)));
    }
  } catch (err) {
    supervisor?.stop();
    await Promise.all(processes.map((p) => stopProcess(p.child, "SIGKILL")));
    throw err;
  }

  const gateways = processes.filter((p) => p.service === "gateway");
  return {
    gatewayUrl: `http://127.0.0.1:${gateways[0]!.port}`,
    gatewayUrls: gateways.map((g) => `http://127.0.0.1:${g.port}`),
    processes,
    addReplica: (service) => launch(services.find((s) => s.name === service)!),
    reason,
    async restart(name, env = {}) {
      if (supervisor) throw new Error("restart() is for stacks without a supervisor (it restarts by itself)");
      const proc = processes.find((p) => p.name === name)!;
      await stopProcess(proc.child, "SIGKILL");
      for (const [k, v] of Object.entries(env)) {
        if (v === undefined) delete proc.env[k];
        else proc.env[k] = v;
      }
      proc.child = spawnChild(proc, entries.get(name)!);
      await waitReady(proc.port, proc.child, name, () => reason(name));
      return proc;
    },
    async stop() {
      supervisor?.stop();
      // The gateways first (replicas added since the start too), so no new calls arrive while the
      // services finish theirs.
      const fronts = processes.filter((p) => p.service === "gateway");
      await Promise.all(fronts.map((g) => stopProcess(g.child, "SIGTERM")));
      await Promise.all(processes.filter((p) => p.service !== "gateway").map((p) => stopProcess(p.child, "SIGTERM")));
    },
  };
}
