// The Code node's two Run buttons in the real app (the renderer build served by the web host, an
// installed pack with JS and WASM entries): "Run node-1" goes through code.run in the main
// process, "Run in this window (node-1)" through this page's browser runner; both show the same
// value, modules and calls, and the page stays free of CSP violations while the workers compile
// WebAssembly.

import { expect, test } from '@playwright/test';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { fixtureDataDir, type TempDir } from '../electron/testing/test-support.ts';
import { startAppSession, type AppSession } from './app-session.ts';
import { BUILD, REPO_ROOT, snap } from './support.ts';

let data: TempDir;
let app: AppSession;
let page: Page;
let problems: string[];

// Tests of a suite share its host, registry and page, so they run in order; a failure skips the rest.
test.describe.configure({ mode: 'serial' });

test.beforeAll(async ({ browser }) => {
  test.setTimeout(300_000);
  data = await fixtureDataDir(path.join(REPO_ROOT, 'fixtures/discovery/good/node_modules/@acme/geo'));
  app = await startAppSession(browser, data.path, BUILD);
  ({ page, problems } = await app.openApp());
  await page.getByRole('navigation', { name: 'Screens' }).getByRole('button', { name: 'Workflows' }).click();
});

test.afterAll(async () => {
  await app?.close();
  await data?.remove();
});

async function bothRuns(code: string): Promise<{ main: string; here: string; mainText: string; hereText: string }> {
  await page.getByLabel('Code of node-1').fill(code);
  await page.getByRole('button', { name: 'Run node-1', exact: true }).click();
  const mainOutput = page.getByRole('region', { name: 'Run result' }).first();
  await mainOutput.waitFor({ timeout: 60_000 });
  const window = page.getByRole('region', { name: 'In this window: node-1' });
  await window.getByRole('button', { name: 'Run in this window (node-1)' }).click();
  const hereOutput = window.getByRole('region', { name: 'Run result' });
  await hereOutput.waitFor({ timeout: 60_000 });
  await page.getByRole('button', { name: 'Run in this window (node-1)' }).and(page.locator(':not([disabled])')).waitFor();
  await page.getByRole('button', { name: 'Run node-1', exact: true }).and(page.locator(':not([disabled])')).waitFor();
  const strip = (text: string | null) => (text ?? '').replace(/Time[\d.]+ ms/, 'Time');
  return {
    main: (await mainOutput.getByLabel('Result value').textContent()) ?? '',
    here: (await hereOutput.getByLabel('Result value').textContent()) ?? '',
    mainText: strip(await page.getByRole('region', { name: 'Run result' }).first().textContent()),
    hereText: strip(await hereOutput.textContent()),
  };
}

test.describe('Run in this window next to Run in the main process', () => {
  test('gives the same result for a node importing a JS entry and a WASM entry', async () => {
    for (const specifier of ['@acme/geo', '@acme/geo/simplify-wasm']) {
      await page.getByRole('combobox', { name: 'Add a module to node-1' }).fill(specifier);
      await page.getByRole('listbox', { name: 'Modules to add to node-1' }).getByRole('option', { name: specifier, exact: true }).click();
    }
    const runs = await bothRuns(
      'import { haversine } from "@acme/geo";\nimport { add, scale } from "@acme/geo/simplify-wasm";\nconsole.log("both");\nreturn [Math.round(haversine({ lat: 0, lon: 0 }, { lat: 0, lon: 1 })), await add(40, 2), await scale(0.1, 3)];',
    );
    expect(JSON.parse(runs.main)).toEqual([111, 42, 0.30000000000000004]);
    expect(runs.here).toBe(runs.main);
    expect(runs.hereText).toBe(runs.mainText);
    await snap(page, 'parity-run-in-window');
  });

  test('shows the same denial for an undeclared import', async () => {
    await page.getByRole('button', { name: 'Remove @acme/geo/simplify-wasm', exact: true }).click();
    await page.getByLabel('Code of node-1').fill('import { add } from "@acme/geo/simplify-wasm";\nreturn await add(1, 2);');
    await page.getByRole('button', { name: 'Run node-1', exact: true }).click();
    const window = page.getByRole('region', { name: 'In this window: node-1' });
    await window.getByRole('button', { name: 'Run in this window (node-1)' }).click();
    await window.getByText('import-denied', { exact: true }).first().waitFor({ timeout: 60_000 });
    await page.getByRole('region', { name: 'Run result' }).first().getByText('import-denied', { exact: true }).first().waitFor({ timeout: 60_000 });
    const denied = (region: ReturnType<Page['getByRole']>) => region.locator('dt:has-text("Denied") + dd').textContent();
    expect(await denied(window.getByRole('region', { name: 'Run result' }))).toBe(await denied(page.getByRole('region', { name: 'Run result' }).first()));
  });

  test('ran without page errors or CSP violations', () => {
    expect(problems).toEqual([]);
  });
});
