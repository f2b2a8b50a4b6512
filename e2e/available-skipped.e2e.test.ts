// Issue 18, Available tab: a pack whose only module is known to be skipped (the index says so)
// shows why in place of Install, while a pack next to it still offers Install. None of the packs we
// ship is known skipped any more (cheerio, the last, is admitted since the guest has atob), so the
// index here is the bundled one plus one fixture entry that is. Real Chromium and the real web
// host and services; the registry is a closed local port, so the index alone answers (as offline).

import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { expect, test } from '@playwright/test';
import type { Page } from 'playwright-core';
import { REPO_ROOT, tempDir, type TempDir } from '../electron/testing/test-support.ts';
import { startAppSession, type AppSession } from './app-session.ts';
import { BUILD, snap } from './support.ts';

const SKIPPED = '@sp-fixture/sandbox-intl-dates';
const REASON = "Its only module is skipped: it formats with Intl, which the sandbox's engine does not have.";
const CSV = '@nodetool-ai/sandbox-csv';

let data: TempDir;
let app: AppSession;
let page: Page;
let problems: string[];

test.beforeAll(async ({ browser }) => {
  test.setTimeout(120_000);
  data = await tempDir('e2e-available-skipped');
  const bundled = JSON.parse(await readFile(path.join(REPO_ROOT, 'registry', 'index.json'), 'utf8')) as { packs: object[] };
  const entry = {
    name: SKIPPED,
    description: 'Fixture: parse and format dates with Intl.',
    version: '1.0.0',
    sandboxModules: [SKIPPED],
    recommended: false,
    keywords: ['parse'],
    knownSkipped: REASON,
  };
  const index = path.join(data.path, 'index.json');
  await writeFile(index, JSON.stringify({ ...bundled, packs: [...bundled.packs, entry] }));
  app = await startAppSession(browser, data.path, BUILD, undefined, index);
  await app.useRegistry('http://127.0.0.1:9/');
  ({ page, problems } = await app.openApp({ width: 1280, height: 900 }));
});

test.afterAll(async () => {
  await app?.close();
  await data?.remove();
});

test('a pack whose only module is known to be skipped says why instead of offering Install', async () => {
  await page.getByRole('tab', { name: 'Available' }).click();
  await page.getByLabel('Search for packs').fill('parse');
  const card = (name: string) => page.getByRole('listitem').filter({ has: page.getByRole('heading', { name: `${name} 1.0.0` }) });
  await card(SKIPPED).waitFor({ timeout: 30_000 });
  await card(CSV).waitFor();

  expect(
    await card(SKIPPED)
      .getByRole('button', { name: `Install ${SKIPPED}` })
      .count(),
  ).toBe(0);
  expect(
    await card(SKIPPED)
      .getByRole('note', { name: `Why ${SKIPPED} cannot be installed` })
      .textContent(),
  ).toBe(`Not installable yet. ${REASON}`);
  // Its neighbour is unaffected: the skip is per pack, not a blanket refusal.
  expect(
    await card(CSV)
      .getByRole('button', { name: `Install ${CSV}` })
      .count(),
  ).toBe(1);
  await card(SKIPPED).scrollIntoViewIfNeeded();
  await snap(page, '60-available-known-skipped');
  expect(problems).toEqual([]);
});
