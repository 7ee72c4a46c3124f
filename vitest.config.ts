import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: [
      "packages/*/test/**/*.test.ts",
      "services/*/test/**/*.test.ts",
      "e2e/test/**/*.test.ts",
      "examples/*/test/**/*.test.ts",
    ],
    // Each file starts its own redis-server(s); files run in parallel forks on the 2 cores.
    pool: "forks",
    testTimeout: 30_000,
    hookTimeout: 60_000,
    reporters: ["default"],
  },
});
