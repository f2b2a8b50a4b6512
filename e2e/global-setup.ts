// Playwright's global setup (playwright.config.ts): runs once before the e2e files, checks that
// Debian's Chromium is there and builds the renderer the web host serves, so the files (two
// workers run them in parallel) do not build it twice.

import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { CHROMIUM, REPO_ROOT } from './support.ts';

export default function setup(): void {
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: install Debian's chromium package (.ci/system-deps.sh does) to run the e2e tests.`);
  const built = spawnSync(process.execPath, ['scripts/build-renderer.mjs'], { cwd: REPO_ROOT, encoding: 'utf8' });
  if (built.status !== 0) throw new Error(`renderer build failed: ${built.stderr}`);
}
