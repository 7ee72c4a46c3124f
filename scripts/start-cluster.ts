/**
 * `npm run start:cluster`: the whole stack on a local Redis Cluster (3 masters, 3 replicas; data,
 * append-only files and nodes.conf under .data/cluster), with the services of docker-compose.yml
 * as local processes in cluster mode (logs under .data/logs). The nodes keep their ports across
 * runs, so a second start rejoins the same cluster with its data. Ctrl-C stops everything.
 */
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";
import { REPO_ROOT, startProcessStack, startRedisCluster, stopOnSignal } from "@starpost/testkit";
import { localStackEnv, platformToken } from "./local-stack-env.ts";

const data = join(REPO_ROOT, ".data");
const dir = join(data, "cluster");
const portsFile = join(dir, "ports.json");
mkdirSync(dir, { recursive: true });

const free = (port: number) =>
  new Promise<boolean>((resolve) => {
    const srv = createServer();
    srv.once("error", () => resolve(false));
    srv.listen(port, "127.0.0.1", () => srv.close(() => resolve(true)));
  });

/** The ports of the last run when they (and their bus ports) are free; else a fresh cluster. */
async function previousPorts(): Promise<number[] | undefined> {
  if (!existsSync(portsFile)) return undefined;
  const ports = JSON.parse(readFileSync(portsFile, "utf8")) as number[];
  for (const p of ports) if (!(await free(p)) || !(await free(p + 10000))) return undefined;
  return ports;
}

const ports = await previousPorts();
if (!ports) rmSync(dir, { recursive: true, force: true }); // ports taken: a fresh cluster
mkdirSync(dir, { recursive: true });
const cluster = await startRedisCluster({ dir, appendonly: true, ports, nodeTimeoutMs: 5000 });
writeFileSync(portsFile, JSON.stringify(cluster.nodes.map((n) => n.port)) + "\n");

const token = platformToken(data);
const stack = await startProcessStack({
  redisUrl: "redis://127.0.0.1:1", // unused: REDIS_CLUSTER_NODES wins
  gatewayPort: Number(process.env.PORT ?? 8081),
  logDir: join(data, "logs"),
  env: {
    ...localStackEnv(token),
    REDIS_CLUSTER_NODES: cluster.seeds,
    ...(process.env.REDIS_WAIT_REPLICAS ? { REDIS_WAIT_REPLICAS: process.env.REDIS_WAIT_REPLICAS } : {}),
  },
}).catch(async (err) => {
  await cluster.stop();
  throw err;
});

const masters = await cluster.masters();
process.stdout.write(`
starpost is running on a Redis Cluster (${stack.processes.map((p) => p.name).join(", ")})

  Bot API root     ${stack.gatewayUrl}
  Platform API     ${stack.gatewayUrl}/platform/v1   Authorization: Bearer ${token}
  Redis Cluster    REDIS_CLUSTER_NODES=${cluster.seeds}
                   masters ${masters.map((m) => m.port).join(", ")} (data in .data/cluster)
  Logs             .data/logs/

Press Ctrl-C to stop.
`);

const stopping = stopOnSignal(async () => {
  await stack.stop();
  await cluster.stop();
});
for (const p of stack.processes) {
  p.child.once("exit", (code, signal) => {
    if (!stopping())
      process.stderr.write(`starpost: ${p.name} exited (${signal ?? code}); see .data/logs/${p.name}.log\n`);
  });
}
