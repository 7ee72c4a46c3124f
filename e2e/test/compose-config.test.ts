import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { ALL_CONFIG_SCHEMAS, parseConfig } from "@starpost/shared";
import { readCompose } from "@starpost/testkit";

// The compose file is checked against the services' real config schemas: every variable it sets
// exists and parses (`npm run test:compose` then runs it on a Docker engine).
describe("docker-compose.yml", () => {
  const env = { PLATFORM_TOKEN: "a-platform-token-for-the-check" };
  const services = readCompose(env);

  it("declares the four services", () => {
    expect(services.map((s) => s.name).sort()).toEqual(["gateway", "invoices", "updates", "webhook-worker"]);
    expect(services.find((s) => s.name === "webhook-worker")!.replicas).toBeGreaterThanOrEqual(2);
  });

  for (const service of readCompose(env)) {
    it(`sets only variables ${service.name} reads, and they parse`, () => {
      const schema = ALL_CONFIG_SCHEMAS[service.name as keyof typeof ALL_CONFIG_SCHEMAS];
      expect(schema).toBeDefined();
      const known = Object.keys(schema.shape);
      expect(Object.keys(service.environment).filter((k) => !known.includes(k))).toEqual([]);
      expect(() => parseConfig(schema, service.environment)).not.toThrow();
      expect(service.bundle).toBe(`dist/${service.name}.mjs`);
      expect(service.entry).toBe(`services/${service.name}/src/main.ts`);
    });
  }

  it("refuses to start the gateway without a platform token", () => {
    expect(() => readCompose({})).toThrow(/PLATFORM_TOKEN is required/);
  });
});

describe("the README's configuration table", () => {
  it("lists every variable a service reads", () => {
    const readme = readFileSync(new URL("../../README.md", import.meta.url), "utf8");
    const table = readme.slice(readme.indexOf("## Configuration"), readme.indexOf("## Running with Docker Compose"));
    const variables = new Set(Object.values(ALL_CONFIG_SCHEMAS).flatMap((s) => Object.keys(s.shape)));
    expect([...variables].filter((v) => !table.includes(`\`${v}\``))).toEqual([]);
  });
});
