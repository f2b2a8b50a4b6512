import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['shared/**/*.test.ts', 'electron/**/*.test.ts', 'renderer/**/*.test.{ts,tsx}', 'scripts/**/*.test.ts'],
    globalSetup: [],
    testTimeout: 30_000,
    hookTimeout: 120_000,
    pool: 'forks',
  },
});
