import { defineConfig } from "vitest/config";

// Workspace packages that ship a build (@starpost/client) are read from their sources here; the
// rest are Vite's default server conditions.
const conditions = ["@starpost/source", "module", "node", "development|production"];

export default defineConfig({
  resolve: { conditions },
  ssr: { resolve: { conditions, externalConditions: ["@starpost/source"] } },
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
