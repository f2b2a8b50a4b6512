// Issue 18, Available tab: a pack whose only module is known to be skipped (the bundled index says
// so for sandbox-html: cheerio fails admission) shows why in place of Install, while a pack next
// to it still offers Install. Real Chromium and the real web host and services; the registry is a
// closed local port, so the bundled index alone answers (as offline).

import { expect, test } from '@playwright/test';
import type { Page } from 'playwright-core';
import { tempDir, type TempDir } from '../electron/testing/test-support.ts';
import { startAppSession, type AppSession } from './app-session.ts';
import { BUILD, snap } from './support.ts';

const HTML = '@nodetool-ai/sandbox-html';
const CSV = '@nodetool-ai/sandbox-csv';

let data: TempDir;
let app: AppSession;
let page: Page;
let problems: string[];

test.beforeAll(async ({ browser }) => {
  test.setTimeout(120_000);
  data = await tempDir('e2e-available-skipped');
  app = await startAppSession(browser, data.path, BUILD);
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
  await card(HTML).waitFor({ timeout: 30_000 });
  await card(CSV).waitFor();

  expect(
    await card(HTML)
      .getByRole('button', { name: `Install ${HTML}` })
      .count(),
  ).toBe(0);
  expect(
    await card(HTML)
      .getByRole('note', { name: `Why ${HTML} cannot be installed` })
      .textContent(),
  ).toBe(
    "Not installable yet. Its only module is skipped: cheerio fails the sandbox's admission check (its entities dependency uses Buffer or atob at import, which the sandbox does not have: ReferenceError: Buffer is not defined).",
  );
  // Its neighbour is unaffected: the skip is per pack, not a blanket refusal.
  expect(
    await card(CSV)
      .getByRole('button', { name: `Install ${CSV}` })
      .count(),
  ).toBe(1);
  await card(HTML).scrollIntoViewIfNeeded();
  await snap(page, '60-available-known-skipped');
  expect(problems).toEqual([]);
});
