import { execFile, spawn, type ChildProcess } from "node:child_process";
import { createInterface } from "node:readline";
import { promisify } from "node:util";
import { Platform } from "./bot-api.ts";
import { stopProcess, track } from "./child-processes.ts";
import { tcpPortsOf } from "./tcp-ports.ts";
import { startLocalStack, type LocalStackOptions } from "./local-stack.ts";

/**
 * The stack the end-to-end tests and the crash test run against. By default a LocalStack they
 * start themselves (the compose file's services as local processes on a private redis-server).
 * Under `npm run test:compose` (scripts/compose-test.sh), the containers of `docker compose up`,
 * described by these variables:
 *   STARPOST_E2E_API_ROOT        the gateway's published address (http://127.0.0.1:<port>)
 *   STARPOST_E2E_PLATFORM_TOKEN  the platform token the stack was started with
 *   STARPOST_E2E_CONTAINERS      JSON [{ name, service, id, url }] of every container
 *   STARPOST_E2E_HOST_ADDRESS    the host address containers reach (webhook receivers listen there)
 *   STARPOST_E2E_HOST_NAME       the name containers know it by (host.docker.internal)
 *   STARPOST_E2E_COMPOSE         the `docker compose ...` command of the stack (for its logs)
 */

/** One running process or container of a service. */
export interface Instance {
  /** e.g. "webhook-worker-2". */
  name: string;
  service: string;
  /** its HTTP address (/healthz, /readyz, /metrics), or redis://... for Redis. */
  url: string;
  /** "process <pid>" or a container id. */
  id: string;
}

/** Where the services reach a receiver on this host: the address to listen on and the host name for URLs. */
export interface ReceiverHost {
  bind: string;
  name: string;
}

export interface Target {
  mode: "processes" | "compose";
  gatewayUrl: string;
  platformToken: string;
  platform: Platform;
  /** every starpost process or container (Redis not included). */
  instances: Instance[];
  receiverHost: ReceiverHost;
  /**
   * Kills one instance with SIGKILL and resolves once it is gone, with the local ports of the TCP
   * connections it held just before (what a receiver sees as their remote ports).
   */
  kill(instance: Instance): Promise<{ ports: Set<number> }>;
  stop(): Promise<void>;
}

const run = promisify(execFile);

/** The running stack described by STARPOST_E2E_* variables, if the tests were started against one. */
export function composeTargetEnv(env = process.env) {
  if (!env.STARPOST_E2E_API_ROOT) return undefined;
  const need = (name: string) => {
    const v = env[name];
    if (!v) throw new Error(`STARPOST_E2E_API_ROOT is set, so ${name} must be too`);
    return v;
  };
  return {
    apiRoot: env.STARPOST_E2E_API_ROOT,
    platformToken: need("STARPOST_E2E_PLATFORM_TOKEN"),
    containers: JSON.parse(need("STARPOST_E2E_CONTAINERS")) as Instance[],
    receiverHost: { bind: need("STARPOST_E2E_HOST_ADDRESS"), name: need("STARPOST_E2E_HOST_NAME") },
    compose: env.STARPOST_E2E_COMPOSE,
  };
}

/**
 * Starts a LocalStack with `opts`, or (under `npm run test:compose`) attaches to the running compose
 * stack, where `opts` other than `onLine` do not apply: the containers run as the compose file says.
 */
export async function startTarget(opts: LocalStackOptions = {}): Promise<Target> {
  const compose = composeTargetEnv();
  if (!compose) {
    const local = await startLocalStack(opts);
    return {
      mode: "processes",
      gatewayUrl: local.gatewayUrl,
      platformToken: local.platformToken,
      platform: local.platform,
      instances: local.stack.processes.map((p) => ({
        name: p.name,
        service: p.service,
        url: `http://127.0.0.1:${p.port}`,
        id: `process ${p.child.pid}`,
      })),
      receiverHost: { bind: "127.0.0.1", name: "127.0.0.1" },
      async kill(instance) {
        const child = local.stack.processes.find((p) => p.name === instance.name)!.child;
        const ports = await tcpPortsOf(child.pid!);
        await stopProcess(child, "SIGKILL");
        return { ports };
      },
      stop: () => local.stop(),
    };
  }

  let logs: ChildProcess | undefined;
  let stopping = false;
  if (opts.onLine && compose.compose) {
    // `docker compose logs` prefixes each line with the container's name: "webhook-worker-2  | {...}".
    logs = track(
      spawn("sh", ["-c", `exec ${compose.compose} logs --follow --no-color --since ${new Date().toISOString()}`], {
        stdio: ["ignore", "pipe", "ignore"],
      }),
    );
    createInterface({ input: logs.stdout! }).on("line", (line) => {
      const bar = line.indexOf(" | ");
      if (bar > 0) opts.onLine!(line.slice(0, bar).trim(), line.slice(bar + 3));
    });
    // Logs that stopped coming would hide errors: say so as an error line of its own.
    logs.on("exit", (code) => {
      if (!stopping)
        opts.onLine!(
          "compose-logs",
          JSON.stringify({ level: 50, msg: `docker compose logs exited with code ${code}` }),
        );
    });
  }
  return {
    mode: "compose",
    gatewayUrl: compose.apiRoot,
    platformToken: compose.platformToken,
    platform: new Platform(compose.apiRoot, compose.platformToken),
    instances: compose.containers.filter((c) => c.service !== "redis"),
    receiverHost: compose.receiverHost,
    async kill(instance) {
      // The container runs the one process: its network namespace's sockets are that process's.
      const { stdout } = await run("docker", ["inspect", "--format", "{{.State.Pid}}", instance.id]);
      const ports = await tcpPortsOf(Number(stdout.trim()), true);
      await run("docker", ["kill", "--signal", "KILL", instance.id]);
      await run("docker", ["wait", instance.id]);
      return { ports };
    },
    async stop() {
      stopping = true;
      if (logs) await stopProcess(logs, "SIGTERM");
    },
  };
}
