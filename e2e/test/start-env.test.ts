import { describe, expect, it } from "vitest";
import { ALL_CONFIG_SCHEMAS, parseConfig } from "@starpost/shared";
import { readCompose } from "@starpost/testkit";
import { localStackEnv } from "../../scripts/local-stack-env.ts";

// What `npm start` and `npm run start:cluster` give the compose file's services (see
// e2e/test/start-supervision.test.ts for the starter itself).
describe("the local stack's environment", () => {
  const token = "a-platform-token-for-the-check";

  it("gives a fresh internal token each start, long enough for the services", () => {
    const a = localStackEnv(token, {}).INTERNAL_TOKEN!;
    expect(a.length).toBeGreaterThanOrEqual(16);
    expect(localStackEnv(token, {}).INTERNAL_TOKEN).not.toBe(a);
  });

  it("lets webhooks reach private addresses unless the operator says otherwise, and the services read it", () => {
    const allowed = (env: Record<string, string>) => {
      // As startProcessStack reads the compose file: the operator's environment, the starter's overrides.
      const values = readCompose({ ...env, ...localStackEnv(token, env) })
        .filter((s) => s.name === "updates" || s.name === "webhook-worker")
        .map((s) => {
          const schema = ALL_CONFIG_SCHEMAS[s.name as "updates" | "webhook-worker"];
          return parseConfig(schema, s.environment).WEBHOOK_ALLOW_PRIVATE_NETWORKS;
        });
      expect(values).toHaveLength(2);
      return [...new Set(values)];
    };
    expect(allowed({})).toEqual([true]);
    expect(allowed({ WEBHOOK_ALLOW_PRIVATE_NETWORKS: "" })).toEqual([true]);
    expect(allowed({ WEBHOOK_ALLOW_PRIVATE_NETWORKS: "false" })).toEqual([false]);
    expect(allowed({ WEBHOOK_ALLOW_PRIVATE_NETWORKS: "no" })).toEqual([false]);
    expect(localStackEnv(token, { WEBHOOK_ALLOW_PRIVATE_NETWORKS: "maybe" }).WEBHOOK_ALLOW_PRIVATE_NETWORKS).toBe(
      "maybe",
    );
  });
});
