// The web face end to end: `npm run web`'s pieces (the Vite build, the web host, the contract over
// HTTP) in real Chromium. The page must connect with the token from the printed URL, drop the
// token from the address bar, render the installed modules through the contract client, and run
// under the strict CSP without a single violation.

import { expect, test } from '@playwright/test';
import path from 'node:path';
import type { Browser } from 'playwright-core';
import type { WebHost } from '../electron/server/web-host.ts';
import { fixtureDataDir, type TempDir } from '../electron/testing/test-support.ts';
import { startAppSession, type AppSession } from './app-session.ts';
import { BUILD, REPO_ROOT, snap } from './support.ts';

let data: TempDir;
let app: AppSession;
let host: WebHost;
let browser: Browser;

// Tests of a suite share its host, registry and page, so they run in order; a failure skips the rest.
test.describe.configure({ mode: 'serial' });

test.beforeAll(async ({ browser: sharedBrowser }) => {
  test.setTimeout(300_000);
  data = await fixtureDataDir(path.join(REPO_ROOT, 'fixtures/discovery/good/node_modules/@acme/geo'));
  app = await startAppSession(sharedBrowser, data.path, BUILD);
  host = app.host;
  browser = sharedBrowser;
});

test.afterAll(async () => {
  await app?.close();
  await data?.remove();
});

test.describe('the web app in Chromium', () => {
  test('connects with the printed URL, hides the token, and lists the modules under a strict CSP', async () => {
    const page = await browser.newPage();
    const problems: string[] = [];
    page.on('console', (message) => {
      if (message.type() === 'error') problems.push(message.text());
    });
    page.on('pageerror', (error) => problems.push(error.message));
    await page.goto(host.url);
    await page.getByRole('heading', { name: 'Sandbox Packs' }).waitFor();
    // A plain (unmanaged) root: the ledger lists nothing, discovery still finds the modules.
    await page.getByText('No packs installed yet.', { exact: false }).waitFor();
    await page.getByRole('button', { name: 'Diagnostics' }).click();
    await page.getByText('@acme/geo/simplify-wasm').first().waitFor();
    expect(page.url()).toBe(`${host.origin}/`);
    // A reload keeps working from the session's stored token.
    await page.reload();
    await page.getByRole('button', { name: 'Diagnostics' }).click();
    await page.getByText('@acme/geo/simplify-wasm').first().waitFor();
    expect(problems).toEqual([]);
    await page.close();
  });

  test('without the token the page says how to connect, and the API refuses it', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(`${host.origin}/`);
    await page.getByRole('alert').waitFor();
    expect(await page.getByRole('alert').textContent()).toBe("This tab has no access token, so it cannot reach the app's data.");
    // A page in the app's own header and styles that says how to open the app, not a bare line.
    await page.getByRole('heading', { name: 'Sandbox Packs', level: 1 }).waitFor();
    const panel = page.getByRole('region', { name: 'Open Sandbox Packs from the address it printed' });
    await expect(panel).toContainText('its terminal prints a line beginning with Open, followed by an address that ends in #token=');
    expect(await panel.evaluate((el) => getComputedStyle(el).borderTopStyle)).toBe('solid');
    await snap(page, 'web-app-no-token');
    const status = await page.evaluate(
      async () => (await fetch('/api/rpc/settings.get', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{}' })).status,
    );
    expect(status).toBe(401);
    await context.close();
  });

  test('blocks inline script by CSP (a pack summary rendered as text can never run)', async () => {
    const page = await browser.newPage();
    await page.goto(host.url);
    await page.getByRole('heading', { name: 'Sandbox Packs' }).waitFor();
    const ran = await page.evaluate(() => {
      const script = document.createElement('script');
      script.textContent = 'window.__inline = true';
      document.body.append(script);
      return (window as unknown as { __inline?: boolean }).__inline === true;
    });
    expect(ran).toBe(false);
    await page.close();
  });
});
