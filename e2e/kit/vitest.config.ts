import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    globalSetup: ["test/starpost.setup.ts"],
    testTimeout: 30_000,
  },
});
