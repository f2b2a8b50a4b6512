// Pack-supplied text in the page shows hidden characters as \uXXXX, in real Chromium against the
// real web host: a pack whose version carries a bidi override (U+202E) and whose module points at
// a file name with one, and a description-like reason with a zero-width space. On the Diagnostics
// screen the text reads `\u202E` literally and no hidden character is left in the DOM text.

import { expect, test } from '@playwright/test';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Browser } from 'playwright-core';
import type { WebHost } from '../electron/server/web-host.ts';
import { tempDir, type TempDir } from '../electron/testing/test-support.ts';
import { startAppSession, type AppSession } from './app-session.ts';
import { BUILD, snap, watchProblems } from './support.ts';

const HIDDEN = /[\u200b-\u200f\u202a-\u202e\u2066-\u2069\ufeff]/;
let data: TempDir;
let app: AppSession;
let host: WebHost;
let browser: Browser;

async function pack(name: string, manifest: object): Promise<void> {
  const dir = path.join(data.path, 'node_modules', name);
  await mkdir(path.join(dir, 'sandbox'), { recursive: true });
  await writeFile(path.join(dir, 'package.json'), JSON.stringify({ name, ...manifest }));
  await writeFile(path.join(dir, 'sandbox/index.js'), 'export const a = 1;\n');
}

// Tests of a suite share its host, registry and page, so they run in order; a failure skips the rest.
test.describe.configure({ mode: 'serial' });

test.beforeAll(async ({ browser: sharedBrowser }) => {
  test.setTimeout(300_000);
  data = await tempDir('display');
  await pack('bidi-version', {
    version: '1.0.0-\u202Ecod.exe',
    nodetool: { apiVersion: 1, sandboxModules: [{ name: '.', kind: 'js', file: 'sandbox/index.js' }] },
  });
  await pack('bidi-file', {
    version: '1.0.0',
    nodetool: {
      apiVersion: 1,
      sandboxModules: [
        { name: '.', kind: 'js', file: 'sandbox/index.js' },
        { name: 'extra', kind: 'js', file: 'sandbox/m\u200B\u202Esj.txt' },
      ],
    },
  });
  app = await startAppSession(sharedBrowser, data.path, BUILD);
  host = app.host;
  browser = sharedBrowser;
});

test.afterAll(async () => {
  await app?.close();
  await data?.remove();
});

test.describe('hidden characters in pack text, in Chromium', () => {
  test('the Diagnostics screen shows a bidi override and a zero-width space as \\u202E and \\u200B', async () => {
    const page = await browser.newPage();
    const problems = watchProblems(page);
    await page.goto(host.url);
    await page.getByRole('heading', { name: 'Sandbox Packs' }).waitFor();
    await page.getByRole('navigation', { name: 'Screens' }).getByRole('button', { name: 'Diagnostics' }).click();

    const version = page.getByRole('article', { name: 'Diagnostics of bidi-version' });
    await version.waitFor();
    expect(await version.getByRole('heading').textContent()).toBe('bidi-version 1.0.0-\\u202Ecod.exe');
    expect(await version.locator('p.failure').textContent()).toBe('package.json version "1.0.0-\\u202Ecod.exe" is not a semver version. manifest-invalid');

    const file = page.getByRole('article', { name: 'Diagnostics of bidi-file' });
    expect(await file.locator('.module-skipped .reason').textContent()).toBe('sandbox/m\\u200B\\u202Esj.txt does not exist in the pack.');

    const text = await page.locator('main').textContent();
    expect(text).not.toMatch(HIDDEN);
    await snap(page, 'diagnostics-hidden-characters');
    expect(problems).toEqual([]);
    await page.close();
  });
});
