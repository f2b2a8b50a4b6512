// Playwright's global setup (playwright.config.ts): runs once before the e2e files, checks that
// Debian's Chromium is there and builds what the web hosts serve — the renderer and the browser
// fixture runner page (out/parity) — once. No suite builds either itself: two workers run the
// files in parallel, and a suite's rebuild (Vite empties its out dir) deleted the assets of a page
// another worker's suite was loading from the same folder (a page stuck before `ready`, in CI).

import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { build } from 'vite';
import { existsSync } from 'node:fs';
import { CHROMIUM, REPO_ROOT } from './support.ts';

export default async function setup(): Promise<void> {
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: install Debian's chromium package (.ci/system-deps.sh does) to run the e2e tests.`);
  const built = spawnSync(process.execPath, ['scripts/build-renderer.mjs'], { cwd: REPO_ROOT, encoding: 'utf8' });
  if (built.status !== 0) throw new Error(`renderer build failed: ${built.stderr}`);
  await build({ configFile: path.join(REPO_ROOT, 'renderer/runner/parity/vite.config.ts'), logLevel: 'warn' });
}
