// End-to-end tests: the built renderer in real headless Chromium (Debian's /usr/bin/chromium,
// driven by playwright-core) against the real web host and a real local Verdaccio. Kept on
// vitest so one runner drives unit and e2e suites; `npm test` runs this config after the unit
// suite. The global setup checks for Chromium and builds the renderer once.
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['e2e/**/*.e2e.test.ts'],
    globalSetup: ['e2e/global-setup.ts'],
    testTimeout: 120_000,
    hookTimeout: 180_000,
    pool: 'forks',
    // Two cores shared with the registry, npm and the browser: one file at a time.
    fileParallelism: false,
  },
});
