// `npm start` where the electron package is installed without its binary (what
// ELECTRON_SKIP_BINARY_DOWNLOAD, or a machine that cannot download it, leaves): one sentence on
// stderr saying what is missing and what to do, exit 1, no download attempt and no stack trace.
// The script runs from a copy of the real layout (scripts/start.mjs beside the real electron
// package files, minus its binary), so the test means the same on a machine that has Electron.

import { spawnSync } from 'node:child_process';
import { cp, mkdir, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '..');
let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'sp-start-'));
  await mkdir(path.join(dir, 'scripts'));
  await cp(path.join(ROOT, 'scripts/start.mjs'), path.join(dir, 'scripts/start.mjs'));
  const electron = path.join(ROOT, 'node_modules/electron');
  await cp(electron, path.join(dir, 'node_modules/electron'), {
    recursive: true,
    filter: (source) => !['dist', 'path.txt'].includes(path.relative(electron, source)),
  });
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('npm start without the Electron runtime', () => {
  it('says in one sentence what is missing and what to run, and exits 1', () => {
    const env: NodeJS.ProcessEnv = { ...process.env, ELECTRON_SKIP_BINARY_DOWNLOAD: '1' };
    delete env.ELECTRON_OVERRIDE_DIST_PATH;
    const run = spawnSync(process.execPath, ['scripts/start.mjs'], { cwd: dir, env, encoding: 'utf8', timeout: 60_000 });
    expect({ status: run.status, stdout: run.stdout, stderr: run.stderr }).toEqual({
      status: 1,
      stdout: '',
      stderr:
        "The Electron runtime is not installed (node_modules/electron has no binary), so the desktop window cannot open: run `npm run web` to use the same app in a browser, or `node node_modules/electron/install.js` to download Electron's binary.\n",
    });
  });
});
