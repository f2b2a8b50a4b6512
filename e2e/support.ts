// Shared pieces of the e2e suites: where Chromium and the build are, the launch flags for a
// headless Debian Chromium with no background traffic, and a page wrapper that records console
// errors and page errors (a CSP violation is a console error) so each test can assert none.

import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type Page } from 'playwright-core';

export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const CHROMIUM = '/usr/bin/chromium';
export const BUILD = path.join(REPO_ROOT, 'out/renderer');
export const ARTIFACTS = path.join(REPO_ROOT, 'e2e/artifacts');

/** Headless Debian Chromium with no background traffic (also the Playwright config's launch flags). */
export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export function launchChromium(): Promise<Browser> {
  // Playwright gives each launch a fresh empty profile of its own.
  return chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
}

export function watchProblems(page: Page): string[] {
  const problems: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error') problems.push(message.text());
  });
  page.on('pageerror', (error) => problems.push(error.message));
  return problems;
}

/** Save a screenshot of the page as a test artifact (e2e/artifacts/, gitignored). */
export async function snap(page: Page, name: string): Promise<void> {
  await mkdir(ARTIFACTS, { recursive: true });
  await page.screenshot({ path: path.join(ARTIFACTS, `${name}.png`), fullPage: true });
}
