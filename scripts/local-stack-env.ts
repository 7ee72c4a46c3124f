/**
 * What `starpost start` (packages/cli/src/start.ts) and `npm run start:cluster` (scripts/start-cluster.ts) give
 * the services of docker-compose.yml on top of the compose file: the secrets it requires, and the
 * local stack's own default for private webhooks.
 */
import { randomBytes } from "node:crypto";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

type Env = Record<string, string | undefined>;

/** PLATFORM_TOKEN when set, else the one kept in `<data>/platform-token` (made on the first start). */
export function platformToken(data: string, env: Env = process.env): string {
  if (env.PLATFORM_TOKEN) return env.PLATFORM_TOKEN;
  const file = join(data, "platform-token");
  if (!existsSync(file)) writeFileSync(file, randomBytes(24).toString("base64url") + "\n", { mode: 0o600 });
  return readFileSync(file, "utf8").trim();
}

/** The overrides of the compose file's environment for a local stack (`env`: the operator's). */
export function localStackEnv(token: string, env: Env = process.env): Record<string, string> {
  return {
    PLATFORM_TOKEN: token,
    // Only the processes started here call one another: a fresh secret each start.
    INTERNAL_TOKEN: randomBytes(24).toString("hex"),
    // Bots under development run on this machine or its network, so webhooks may reach loopback
    // and private addresses unless the operator sets false (empty counts as unset, as in compose).
    WEBHOOK_ALLOW_PRIVATE_NETWORKS: env.WEBHOOK_ALLOW_PRIVATE_NETWORKS || "true",
    ...(env.LOG_LEVEL ? { LOG_LEVEL: env.LOG_LEVEL } : {}),
  };
}
