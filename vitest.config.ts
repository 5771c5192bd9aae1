import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["src/**/*.test.ts", "channels/**/*.test.ts", "tests/**/*.test.ts"],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: "forks",
    globalSetup: ["tests/global-setup.ts", "tests/build-bundle.ts"],
    // In CI a JSON report is written too, for .ci/run's closing "N passed, N failed" line.
    reporters: process.env.CI ? ["default", ["json", { outputFile: "data/test-report.json" }]] : ["default"],
  },
});
