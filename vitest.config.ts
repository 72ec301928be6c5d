import path from "node:path";
import { defineConfig } from "vitest/config";

/**
 * Files that take both cores on purpose (CPU hogs to starve processing, or load at full
 * speed) run alone, after everything else. Beside another file's server and load, their hogs
 * slowed that file and the extra load changed what they measure: in a CI run the starved
 * worker-and-processor case stored 3,000 envelopes in over 40 s, against 2-9 s alone. In
 * another, the overload test's 30 s of load beside the browser flow kept that flow's
 * idle-priority worker from storing one event for over 20 s, and the flow failed.
 */
const EXCLUSIVE = [
  "tests/thread-priority.test.ts",
  "tests/overload.test.ts",
  "tests/accept-first.test.ts",
];

export default defineConfig({
  resolve: { alias: { "@": path.resolve(import.meta.dirname) } },
  test: {
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // Integration tests start real servers; two files at a time suit a 2-core machine.
    maxWorkers: 2,
    reporters: ["default"],
    projects: [
      {
        extends: true,
        test: {
          name: "shared",
          include: ["src/**/*.test.ts", "tests/**/*.test.ts"],
          exclude: EXCLUSIVE,
          sequence: { groupOrder: 0 },
        },
      },
      {
        extends: true,
        test: {
          name: "exclusive",
          include: EXCLUSIVE,
          fileParallelism: false,
          sequence: { groupOrder: 1 },
        },
      },
    ],
  },
});
