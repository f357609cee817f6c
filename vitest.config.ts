import { defineConfig } from 'vitest/config';

// Test files run in forked processes (PGlite is WebAssembly and happiest with a process to itself).
// Two cores on the reference machine: two files at a time keeps CI well under its budget.
export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', 'sdk/test/**/*.test.ts'],
    pool: 'forks',
    maxWorkers: 2,
    testTimeout: 60_000,
    hookTimeout: 120_000,
    globalSetup: ['test/global-setup.ts'],
    reporters: ['default'],
  },
});
