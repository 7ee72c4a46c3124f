import { defineConfig } from "vitest/config";

// Tests that need the compose stack itself (scripts/compose-test.sh runs them after
// `docker compose up --scale webhook-worker=4`); `npm test` does not include them.
export default defineConfig({
  test: {
    include: ["e2e/compose/**/*.test.ts"],
    testTimeout: 300_000,
    hookTimeout: 60_000,
  },
});
