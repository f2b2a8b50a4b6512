// End-to-end tests: the built renderer in real headless Chromium (Debian's /usr/bin/chromium,
// driven by playwright-core) against the real web host. Separate from the unit suite because
// they need the browser installed: `apt-get install chromium`, then `npm run test:e2e`.
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['e2e/**/*.e2e.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: 'forks',
  },
});
