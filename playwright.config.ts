// The e2e suites on Playwright's own runner: the built renderer in Debian's Chromium
// (/usr/bin/chromium — `npx playwright install` is never run, so no browser is downloaded),
// against the real web host, services and a real local Verdaccio each suite starts. The global
// setup checks for Chromium and builds the renderer once. Suites share state between their tests
// (one registry, one data directory, one page), so each file runs in order in one worker; two
// workers let two files overlap on the machine's two cores. Traces and screenshots are kept for
// failures, the HTML report goes to e2e/artifacts/ (gitignored) with the per-screen snapshots.

import { defineConfig } from '@playwright/test';
import { CHROMIUM_ARGS, CHROMIUM } from './e2e/support.ts';

export default defineConfig({
  testDir: 'e2e',
  testMatch: '**/*.e2e.test.ts',
  globalSetup: './e2e/global-setup.ts',
  timeout: 180_000,
  expect: { timeout: 30_000 },
  fullyParallel: false,
  workers: 2,
  forbidOnly: true,
  retries: 0,
  outputDir: 'e2e/artifacts/test-results',
  reporter: [['list'], ['html', { outputFolder: 'e2e/artifacts/report', open: 'never' }]],
  use: {
    browserName: 'chromium',
    headless: true,
    launchOptions: { executablePath: CHROMIUM, args: CHROMIUM_ARGS },
    trace: 'retain-on-failure',
    screenshot: 'only-on-failure',
  },
});
