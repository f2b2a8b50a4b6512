// The page when the server behind it stops (Ctrl-C in its terminal): what the person tries next
// answers with one sentence that says the server stopped and how to get a working address again,
// never an internal method name (`packs.install`) or transport code (`service-unreachable`).

import { expect, test } from '@playwright/test';
import path from 'node:path';
import { fixtureDataDir, type TempDir } from '../electron/testing/test-support.ts';
import { startAppSession, type AppSession } from './app-session.ts';
import { BUILD, REPO_ROOT, snap } from './support.ts';

let data: TempDir;
let app: AppSession;

test.beforeAll(async ({ browser }) => {
  data = await fixtureDataDir(path.join(REPO_ROOT, 'fixtures/discovery/good/node_modules/@acme/geo'));
  app = await startAppSession(browser, data.path, BUILD);
});

test.afterAll(async () => {
  await app?.close().catch(() => undefined);
  await data?.remove();
});

test('after the server stops, an install says so in a user sentence without method names', async () => {
  const { page } = await app.openApp({ width: 1280, height: 800 });
  await page.getByLabel('Package spec').fill('@acme/anything');
  await app.host.close();
  await page.getByRole('button', { name: 'Install', exact: true }).click();
  const alert = page.getByRole('alert').filter({ hasText: 'The install failed:' });
  await expect(alert).toHaveText(
    'The install failed: The Sandbox Packs server has stopped or cannot be reached. Start it again in a terminal (the same command that started it), then open the new address it prints: the old one stops working when the server stops.',
  );
  await snap(page, 'server-stopped-install');
  const text = (await page.locator('body').textContent()) ?? '';
  expect(text).not.toMatch(/\b(packs|catalog|settings|code|workflows)\.[a-zA-Z]+\b|service-unreachable/);
});
