// A pack published to the registry during the run is found under Available (the registry's npm
// search, merged with the bundled index, each card marked with its source and the module lines
// from the published manifest) and installs from there. Real Chromium, the real web host and
// services, a real local Verdaccio.

import { expect, test } from '@playwright/test';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { scaffoldPack } from '../electron/authoring/scaffold.ts';
import { tempDir, type TempDir } from '../electron/testing/test-support.ts';
import { startRegistry, type TestRegistry } from '../electron/testing/verdaccio.ts';
import { startAppSession, type AppSession } from './app-session.ts';
import { BUILD, snap } from './support.ts';

const NAME = '@sp-fixture/published-now';

let registry: TestRegistry;
let work: string;
let data: TempDir;
let app: AppSession;
let page: Page;
let problems: string[];

// Tests of a suite share its host, registry and page, so they run in order; a failure skips the rest.
test.describe.configure({ mode: 'serial' });

test.beforeAll(async ({ browser }) => {
  test.setTimeout(300_000);
  registry = await startRegistry({ uplink: false });
  data = await tempDir('e2e-search');
  app = await startAppSession(browser, data.path, BUILD);
  await app.useRegistry(registry.url);
  ({ page, problems } = await app.openApp({ width: 1280, height: 900 }));
});

test.afterAll(async () => {
  await app?.close();
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
