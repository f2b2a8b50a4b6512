// The first start while the shipped packs are being set up (issue 29): a pack the ledger already
// lists but the catalog has not loaded yet says it is being installed — never "No sandbox modules
// (host code only)" — and its Details read its modules from its files. The seeding (real
// installer, real compiler) is held after the install, before its modules are prepared, by a
// gate the test opens; then the same cards list the ready modules without a reload.

import { expect, test } from '@playwright/test';
import type { Browser } from 'playwright-core';
import { FIRST_RUN_MESSAGES, seedInBackground } from '../electron/first-run/background.ts';
import { runFirstRun } from '../electron/first-run/first-run.ts';
import { shippedPrecompiled, shippedTarball } from '../electron/first-run/shipped-tarballs.ts';
import { SHIPPED_PACKS } from '../electron/platform/assets.ts';
import { createAppServices, type AppServices } from '../electron/services/app-services.ts';
import { tempDir, type TempDir } from '../electron/testing/test-support.ts';
import { startWebHost, type WebHost } from '../electron/server/web-host.ts';
import { SEEDING_MODULES_TEXT } from '../renderer/features/first-run/seeding-store.ts';
import { BUILD, snap, watchProblems } from './support.ts';

const YAML = SHIPPED_PACKS.find((p) => p.dir === 'sandbox-yaml')!;
const GEO = SHIPPED_PACKS.find((p) => p.dir === 'geo')!;

let data: TempDir;
let services: AppServices;
let host: WebHost;
let browser: Browser;
let open: () => void = () => {};
let seeding: ReturnType<typeof seedInBackground>;

test.describe.configure({ mode: 'serial' });

test.beforeAll(async ({ browser: sharedBrowser }) => {
  test.setTimeout(300_000);
  await shippedPrecompiled();
  data = await tempDir('e2e-seeding-details');
  const created = await createAppServices({ dataDir: data.path });
  if (!created.ok) throw new Error(created.message);
  services = created.value;
  const gate = new Promise<void>((resolve) => (open = resolve));
  seeding = seedInBackground({
    services,
    packNames: [YAML.name, GEO.name],
    seed: (onProgress) =>
      runFirstRun({
        dataDir: data.path,
        tarball: shippedTarball,
        // Held here: the packs are installed and in the ledger, their modules not yet loaded.
        precompiled: async () => {
          await gate;
          return shippedPrecompiled();
        },
        registry: 'http://127.0.0.1:9/',
        packs: [YAML, GEO],
        onProgress,
      }),
  });
  host = await startWebHost({ dispatcher: services.dispatcher, events: services.events, catalog: services.catalog, staticDir: BUILD, port: 0 });
  browser = sharedBrowser;
});

test.afterAll(async () => {
  open();
  await seeding?.done;
  seeding?.close();
  for (const context of browser?.contexts() ?? []) await context.close();
  await host?.close();
  await services?.dispose();
  await data?.remove();
});

test('while seeding, a listed pack says it is being installed, and its Details read its modules from its files', async () => {
  test.setTimeout(180_000);
  // Wait until the ledger lists both packs: the moment the cards used to say "host code only".
  const end = Date.now() + 120_000;
  for (;;) {
    const listed = await services.dispatcher.handle('packs.list', {}, { face: 'test' });
    if (listed.ok && (listed.value as { packs: unknown[] }).packs.length === 2) break;
    if (Date.now() > end) throw new Error('the seeding never recorded the packs');
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  const problems = watchProblems(page);
  await page.goto(host.url);
  await page.getByRole('heading', { name: 'Sandbox Packs' }).waitFor();
  await page.getByRole('status').filter({ hasText: 'Setting up the packs that come with the app' }).waitFor();
  const yamlCard = page.locator(`article[data-pack="${YAML.name}"]`);
  await yamlCard.getByText(SEEDING_MODULES_TEXT, { exact: true }).waitFor();
  await page.locator(`article[data-pack="${GEO.name}"]`).getByText(SEEDING_MODULES_TEXT, { exact: true }).waitFor();
  expect(await page.getByText('No sandbox modules (host code only).').count()).toBe(0);
  await yamlCard.getByRole('button', { name: `Details of ${YAML.name}`, exact: true }).click();
  const details = page.getByRole('region', { name: YAML.name, exact: true });
  await details.getByRole('list', { name: 'Modules' }).getByRole('listitem').first().waitFor({ timeout: 60_000 });
  expect(await details.getByRole('note').first().textContent()).toBe(
    `The app is still setting up ${YAML.name}, one of the packs it comes with: the modules and exports below were read from its files.`,
  );
  expect(await details.getByRole('list', { name: 'Modules' }).getByRole('listitem').first().textContent()).toMatch(
    /^@nodetool-ai\/sandbox-yaml js not loaded yet exports /,
  );
  await details.getByRole('article', { name: `Documentation of ${YAML.name}` }).waitFor();
  expect(await details.getByText(/No pack named/).count()).toBe(0);
  await snap(page, '29-seeding-installing');

  open();
  await page.getByRole('status').filter({ hasText: FIRST_RUN_MESSAGES.done }).waitFor({ timeout: 120_000 });
  // catalog-changed refreshed the cards and the open Details in place: the modules are ready now.
  await yamlCard.getByRole('list', { name: 'Modules' }).getByText('ready').first().waitFor();
  await details.getByRole('list', { name: 'Modules' }).getByText('ready').first().waitFor();
  expect(await page.getByText(SEEDING_MODULES_TEXT).count()).toBe(0);
  await snap(page, '29-seeding-ready');
  expect(problems).toEqual([]);
  await page.close();
});
