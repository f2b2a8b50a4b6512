// A pack published to the registry during the run is found under Available (the registry's npm
// search, merged with the bundled index, each card marked with its source and the module lines
// from the published manifest) and installs from there. Real Chromium, the real web host and
// services, a real local Verdaccio.

import { expect, test } from '@playwright/test';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { scaffoldPack } from '../electron/authoring/scaffold.ts';
import type { AppServices } from '../electron/services/app-services.ts';
import type { WebHost } from '../electron/server/web-host.ts';
import { tempDir, type TempDir, startAppHost } from '../electron/testing/test-support.ts';
import { startRegistry, type TestRegistry } from '../electron/testing/verdaccio.ts';
import { BUILD, snap, watchProblems } from './support.ts';

const NAME = '@sp-fixture/published-now';

let registry: TestRegistry;
let work: string;
let data: TempDir;
let services: AppServices;
let host: WebHost;
let browser: Browser;
let page: Page;
let problems: string[];

// Tests of a suite share its host, registry and page, so they run in order; a failure skips the rest.
test.describe.configure({ mode: 'serial' });

test.beforeAll(async ({ browser: sharedBrowser }) => {
  test.setTimeout(300_000);
  registry = await startRegistry({ uplink: false });
  data = await tempDir('e2e-search');
  ({ services, host } = await startAppHost(data.path, BUILD));
  const set = await services.dispatcher.handle('settings.setRegistry', { registry: registry.url }, { face: 'test' });
  if (!set.ok) throw new Error(set.message);
  browser = sharedBrowser;
  page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  problems = watchProblems(page);
  await page.goto(host.url);
  await page.getByRole('heading', { name: 'Sandbox Packs' }).waitFor();
});

test.afterAll(async () => {
  for (const context of browser?.contexts() ?? []) await context.close();
  await host?.close();
  await services?.dispose();
  await data?.remove();
  await registry?.stop();
  if (work) await rm(work, { recursive: true, force: true });
});

test.describe('Available lists packs from the registry', () => {
  test('a pack published during the run appears with its source and module line, and installs from there', async () => {
    // Published after the app started: only a live registry search can know it.
    work = await mkdtemp(path.join(os.tmpdir(), 'sp-e2e-search-'));
    const made = await scaffoldPack({ dir: path.join(work, 'pack'), name: NAME });
    if (!made.ok) throw new Error(made.message);
    await registry.publish(made.value.dir);

    await page.getByRole('tab', { name: 'Available' }).click();
    await page.getByLabel('Search for packs').fill('published');
    const card = page.getByRole('listitem').filter({ has: page.getByRole('heading', { name: `${NAME} 0.1.0` }) });
    await card.waitFor({ timeout: 30_000 });
    expect(await card.getByText('registry', { exact: true }).count()).toBe(1);
    expect(await card.getByText('bundled index', { exact: true }).count()).toBe(0);
    expect(await card.getByRole('list', { name: 'Modules' }).textContent()).toBe(`${NAME} (js): Greetings and sums (replace with what your pack does)`);
    await snap(page, '20-available-from-registry');

    // Bundled packs are still listed, marked as such (this registry does not have them).
    await page.getByLabel('Search for packs').fill('yaml');
    const yaml = page.getByRole('listitem').filter({ has: page.getByRole('heading', { name: '@nodetool-ai/sandbox-yaml 1.0.0' }) });
    await yaml.waitFor();
    expect(await yaml.getByText('bundled index', { exact: true }).count()).toBe(1);

    await page.getByLabel('Search for packs').fill('published');
    await card.getByRole('button', { name: `Install ${NAME}` }).click();
    await page
      .getByRole('status')
      .filter({ hasText: `Installed ${NAME}@0.1.0: active.` })
      .waitFor({ timeout: 90_000 });
    await card.getByRole('button', { name: 'Installed — details' }).waitFor();
    expect(problems).toEqual([]);
  });
});
