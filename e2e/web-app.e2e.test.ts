// The web face end to end: `npm run web`'s pieces (the Vite build, the web host, the contract over
// HTTP) in real Chromium. The page must connect with the token from the printed URL, drop the
// token from the address bar, render the installed modules through the contract client, and run
// under the strict CSP without a single violation.

import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAppServices, type AppServices } from '../electron/services/app-services.ts';
import { startWebHost, type WebHost } from '../electron/server/web-host.ts';
import { fixtureDataDir, REPO_ROOT, type TempDir } from '../electron/server/test-support.ts';

const CHROMIUM = '/usr/bin/chromium';
const BUILD = path.join(REPO_ROOT, 'out/renderer');

let data: TempDir;
let services: AppServices;
let host: WebHost;
let browser: Browser;

beforeAll(async () => {
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: install Debian's chromium package to run the e2e tests.`);
  const built = spawnSync(process.execPath, ['scripts/build-renderer.mjs'], { cwd: REPO_ROOT, encoding: 'utf8' });
  if (built.status !== 0) throw new Error(`renderer build failed: ${built.stderr}`);
  data = await fixtureDataDir(path.join(REPO_ROOT, 'fixtures/discovery/good/node_modules/@acme/geo'));
  const created = await createAppServices({ dataDir: data.path });
  if (!created.ok) throw new Error(created.message);
  services = created.value;
  host = await startWebHost({ dispatcher: services.dispatcher, events: services.events, catalog: services.catalog, staticDir: BUILD, port: 0 });
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    // Playwright gives each launch a fresh empty profile of its own.
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
});

afterAll(async () => {
  await browser?.close();
  await host?.close();
  await services?.dispose();
  await data?.remove();
});

describe('the web app in Chromium', () => {
  it('connects with the printed URL, hides the token, and lists the modules under a strict CSP', async () => {
    const page = await browser.newPage();
    const problems: string[] = [];
    page.on('console', (message) => {
      if (message.type() === 'error') problems.push(message.text());
    });
    page.on('pageerror', (error) => problems.push(error.message));
    await page.goto(host.url);
    await page.getByRole('heading', { name: 'Sandbox Packs' }).waitFor();
    await page.getByText('@acme/geo/simplify-wasm').waitFor();
    expect(await page.getByRole('heading', { name: 'Installed packs' }).isVisible()).toBe(true);
    expect(await page.getByText('No packs installed yet.').isVisible()).toBe(true);
    expect(page.url()).toBe(`${host.origin}/`);
    // A reload keeps working from the session's stored token.
    await page.reload();
    await page.getByText('@acme/geo/simplify-wasm').waitFor();
    expect(problems).toEqual([]);
    await page.close();
  });

  it('without the token the page says how to connect, and the API refuses it', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(`${host.origin}/`);
    await page.getByRole('alert').waitFor();
    expect(await page.getByRole('alert').textContent()).toBe('Open the address the app printed at start (it carries this session\'s access token).');
    const status = await page.evaluate(async () => (await fetch('/api/rpc/settings.get', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{}' })).status);
    expect(status).toBe(401);
    await context.close();
  });

  it('blocks inline script by CSP (a pack summary rendered as text can never run)', async () => {
    const page = await browser.newPage();
    await page.goto(host.url);
    await page.getByText('@acme/geo/simplify-wasm').waitFor();
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
