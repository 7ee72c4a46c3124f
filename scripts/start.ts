/**
 * `npm start`: the whole stack on this machine. A private redis-server (data and append-only file
 * under .data/redis) unless REDIS_URL is set, then the services of docker-compose.yml as local
 * processes (logs under .data/logs). Ctrl-C stops everything.
 */
import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { REPO_ROOT, startProcessStack, startRedis } from "@starpost/testkit";

const data = join(REPO_ROOT, ".data");
mkdirSync(join(data, "redis"), { recursive: true });

function platformToken(): string {
  if (process.env.PLATFORM_TOKEN) return process.env.PLATFORM_TOKEN;
  const file = join(data, "platform-token");
  if (!existsSync(file)) writeFileSync(file, randomBytes(24).toString("base64url") + "\n", { mode: 0o600 });
  return readFileSync(file, "utf8").trim();
}

async function redisServer(): Promise<{ url: string; stop: () => Promise<void> }> {
  if (process.env.REDIS_URL) return { url: process.env.REDIS_URL, stop: async () => {} };
  return startRedis({ appendonly: true, dir: join(data, "redis") });
}

const token = platformToken();
const port = Number(process.env.PORT ?? 8081);
const redis = await redisServer();
const stack = await startProcessStack({
  redisUrl: redis.url,
  gatewayPort: port,
  logDir: join(data, "logs"),
  env: {
    PLATFORM_TOKEN: token,
    INTERNAL_TOKEN: randomBytes(16).toString("hex"),
    // The local stack delivers webhooks to bots on this machine.
    WEBHOOK_ALLOW_PRIVATE_NETWORKS: "true",
    ...(process.env.LOG_LEVEL ? { LOG_LEVEL: process.env.LOG_LEVEL } : {}),
  },
}).catch(async (err) => {
  await redis.stop();
  throw err;
});

const root = stack.gatewayUrl;
const example = "starpost_${RANDOM}";
process.stdout.write(`
starpost is running (${stack.processes.map((p) => p.name).join(", ")})

  Bot API root     ${root}          (bots call ${root}/bot<token>/<method>)
  Platform API     ${root}/platform/v1   Authorization: Bearer ${token}
  Console          ${root}/console   (sign in with the platform token)
  Redis            ${redis.url}${process.env.REDIS_URL ? "" : "   (data in .data/redis)"}
  Logs             .data/logs/

Create a bot and call getMe:

  TOKEN=$(curl -s -X POST ${root}/platform/v1/bots -H 'Authorization: Bearer ${token}' -H 'Content-Type: application/json' -d "{\\"username\\":\\"${example}_bot\\"}" | sed -E 's/.*"token":"([^"]+)".*/\\1/') && curl -s ${root}/bot$TOKEN/getMe

Press Ctrl-C to stop.
`);

let stopping = false;
const stop = async () => {
  if (stopping) return;
  stopping = true;
  process.stdout.write("\nstopping starpost...\n");
  await stack.stop();
  await redis.stop();
  process.exit(0);
};
process.on("SIGINT", () => void stop());
process.on("SIGTERM", () => void stop());
for (const p of stack.processes) {
  p.child.once("exit", (code, signal) => {
    if (!stopping) process.stderr.write(`starpost: ${p.name} exited (${signal ?? code}); see .data/logs/${p.name}.log\n`);
  });
}
