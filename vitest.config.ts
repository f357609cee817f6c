import { defineConfig } from 'vitest/config';

// Test files run in forked processes (PGlite is WebAssembly and happiest with a process to itself),
// two at a time on the reference machine's two cores. Files are not isolated from each other: each
// worker process runs many files, so the app's modules, PGlite's compiled WebAssembly and the
// compiled schemas load once per worker instead of once per file, which halves the suite's time
// (976 s → 660 s on the reference machine). What a file changes in the process (the environment,
// per-origin caches) is put back after it by test/setup-file.ts; no test mocks modules or timers.
export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', 'sdk/test/**/*.test.ts'],
    pool: 'forks',
    maxWorkers: 2,
    isolate: false,
    setupFiles: ['test/setup-file.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    globalSetup: ['test/global-setup.ts'],
    reporters: ['default'],
  },
});
