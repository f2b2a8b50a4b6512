import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['shared/**/*.test.ts', 'electron/**/*.test.ts', 'renderer/**/*.test.{ts,tsx}', 'scripts/**/*.test.ts'],
    globalSetup: [],
    testTimeout: 30_000,
    hookTimeout: 120_000,
    pool: 'forks',
    // Two test files at a time on the two cores (Vitest's default is cores - 1, one here): most
    // suites wait on real npm, registries and child processes. Measured: the whole suite 823 s -> 543 s.
    maxWorkers: 2,
  },
});
