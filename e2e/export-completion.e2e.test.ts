// Completing a pack's exports in the Code node's editor (issue 29 item 11), in real Chromium
// against the real web host and sandbox: adding a module in the picker writes its import line;
// after `csv.` (a CommonJS package's default export, like Papa Parse) the editor offers its
// members, asked of the sandbox; `import { ha` offers every module's exports and finishes the
// statement, declaring the module; a namespace import offers the export list; and the editor
// grows with its content, with a Larger view for long code. Each new state is saved under e2e/artifacts/.

import { expect, test } from '@playwright/test';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import type { AppServices } from '../electron/services/app-services.ts';
import type { WebHost } from '../electron/server/web-host.ts';
import { fixtureDataDir, type TempDir, startAppHost } from '../electron/testing/test-support.ts';
import { BUILD, REPO_ROOT, snap, watchProblems } from './support.ts';

let data: TempDir;
let services: AppServices;
let host: WebHost;
let browser: Browser;
let page: Page;
let problems: string[];

test.describe.configure({ mode: 'serial' });

/** A bridge pack over a CommonJS package whose default export is an object built at run time (as papaparse's is). */
async function writeCsvLikePack(root: string): Promise<void> {
  const lib = path.join(root, 'node_modules/papa-like');
  await mkdir(lib, { recursive: true });
  await writeFile(path.join(lib, 'package.json'), JSON.stringify({ name: 'papa-like', version: '1.0.0', main: 'index.js' }));
  await writeFile(
    path.join(lib, 'index.js'),
    [
      'var Papa = {};',
      'Papa.parse = function (text) { return { data: text.split("\\n").map(function (l) { return l.split(","); }) }; };',
      'Papa.unparse = function (rows) { return rows.map(function (r) { return r.join(","); }).join("\\r\\n"); };',
      'Papa.BAD_DELIMITERS = ["\\r", "\\n"];',
      'module.exports = Papa;',
      '',
    ].join('\n'),
  );
  const pack = path.join(root, 'node_modules/@zz/csv');
  await mkdir(pack, { recursive: true });
  await writeFile(
    path.join(pack, 'package.json'),
    JSON.stringify({
      name: '@zz/csv',
      version: '1.0.0',
      description: 'CSV for the sandbox.',
      dependencies: { 'papa-like': '1.0.0' },
      nodetool: { apiVersion: 1, sandboxModules: [{ name: '.', kind: 'js', npm: 'papa-like', description: 'CSV parsing (a CommonJS default export)' }] },
    }),
  );
}

test.beforeAll(async ({ browser: sharedBrowser }) => {
  test.setTimeout(300_000);
  data = await fixtureDataDir(path.join(REPO_ROOT, 'fixtures/discovery/good/node_modules/@acme/geo'));
  await writeCsvLikePack(data.path);
  ({ services, host } = await startAppHost(data.path, BUILD));
  browser = sharedBrowser;
  page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  problems = watchProblems(page);
  await page.goto(host.url);
  await page.getByRole('heading', { name: 'Sandbox Packs' }).waitFor();
  await page.getByRole('navigation', { name: 'Screens' }).getByRole('button', { name: 'Workflows' }).click();
  await editor().waitFor();
});

test.afterAll(async () => {
  for (const context of browser?.contexts() ?? []) await context.close();
  await host?.close();
  await services?.dispose();
  await data?.remove();
});

const editor = () => page.getByLabel('Code of node-1', { exact: true });
const text = () => editor().evaluate((el) => [...el.querySelectorAll(':scope > .cm-line')].map((line) => line.textContent ?? '').join('\n'));
const popup = () => page.locator('.cm-tooltip-autocomplete');
/** Enter on the open list; CodeMirror ignores an Enter within 75 ms of the list changing (its interactionDelay), so wait that out first. */
async function accept(): Promise<void> {
  await page.waitForTimeout(200);
  await page.keyboard.press('Enter');
}
const chip = (specifier: string) => page.getByRole('list', { name: 'Selected for node-1' }).getByRole('button', { name: `Remove ${specifier}`, exact: true });

test.describe('completing exports', () => {
  test('the picker adds the import line with the declaration; `csv.` offers the default export’s members', async () => {
    await editor().fill('return 1;');
    await page.getByRole('combobox', { name: 'Add a module to node-1' }).fill('@zz/csv');
    await page.getByRole('listbox', { name: 'Modules to add to node-1' }).getByRole('option', { name: '@zz/csv', exact: true }).click();
    await chip('@zz/csv').waitFor();
    await expect.poll(text).toBe('import csv from "@zz/csv";\nreturn 1;');
    await editor().fill('import csv from "@zz/csv";\nreturn csv.');
    await editor().press('Control+End');
    // Members come from a run in the sandbox (the first run starts it): generous wait.
    await page.keyboard.press('Control+Space');
    const parse = popup()
      .getByRole('option')
      .filter({ hasText: /^parse/ });
    await parse.waitFor({ timeout: 60_000 });
    const labels = await popup().locator('.cm-completionLabel').allTextContents();
    expect(labels.slice(0, 3).sort()).toEqual(['BAD_DELIMITERS', 'parse', 'unparse']);
    expect(await parse.textContent()).toContain('function · default export of @zz/csv');
    await snap(page, 'export-completion-01-default-members');
    await page.keyboard.type('unp');
    await popup()
      .getByRole('option', { selected: true })
      .filter({ hasText: /^unparse/ })
      .waitFor();
    await accept();
    expect(await text()).toBe('import csv from "@zz/csv";\nreturn csv.unparse');
  });

  test('`import { ha` offers every module’s exports, finishes the statement and declares the module', async () => {
    await editor().fill('');
    await page.keyboard.type('import { ha');
    const option = popup()
      .getByRole('option')
      .filter({ hasText: /^haversine/ });
    await option.waitFor();
    expect(await option.textContent()).toContain('from @acme/geo · not declared: choosing it adds it to this node');
    expect(await popup().locator('.cm-completionLabel').first().textContent()).toBe('haversine');
    await snap(page, 'export-completion-02-open-named-import');
    await accept();
    expect(await text()).toBe('import { haversine } from "@acme/geo";');
    await chip('@acme/geo').waitFor();
  });

  test('a namespace import offers the module’s export list', async () => {
    await editor().fill('import * as geo from "@acme/geo";\nreturn geo.');
    await editor().press('Control+End');
    await page.keyboard.press('Control+Space');
    await popup()
      .getByRole('option')
      .filter({ hasText: /^haversine/ })
      .waitFor();
    await page.keyboard.type('hav');
    await popup()
      .getByRole('option', { selected: true })
      .filter({ hasText: /^haversine/ })
      .waitFor();
    await snap(page, 'export-completion-03-namespace');
    await accept();
    expect(await text()).toBe('import * as geo from "@acme/geo";\nreturn geo.haversine');
  });

  test('the editor grows with its content, up to most of the window, then scrolls; Larger view shows it all', async () => {
    await editor().fill('return 1;');
    const small = await editor().evaluate((el) => (el.closest('.cm-editor') as HTMLElement).getBoundingClientRect().height);
    await editor().fill(Array.from({ length: 20 }, (_, i) => `const v${i} = ${i};`).join('\n'));
    const grown = await editor().evaluate((el) => (el.closest('.cm-editor') as HTMLElement).getBoundingClientRect().height);
    expect(grown).toBeGreaterThan(small + 100);
    await editor().fill(Array.from({ length: 200 }, (_, i) => `const v${i} = ${i};`).join('\n'));
    const capped = await editor().evaluate((el) => (el.closest('.cm-editor') as HTMLElement).getBoundingClientRect().height);
    expect(capped).toBeLessThanOrEqual(900 * 0.65 + 1);
    expect(capped).toBeGreaterThan(grown);
    // Larger view lifts the cap: every line is on the page, and the page scrolls instead.
    const node = page.getByRole('article', { name: 'Code node node-1' });
    expect(await node.getByRole('button', { name: 'Larger view' }).getAttribute('aria-pressed')).toBe('false');
    await node.getByRole('button', { name: 'Larger view' }).click();
    expect(await node.getByRole('button', { name: 'Smaller view' }).getAttribute('aria-pressed')).toBe('true');
    await expect.poll(() => editor().evaluate((el) => (el.closest('.cm-editor') as HTMLElement).getBoundingClientRect().height)).toBeGreaterThan(200 * 15);
    await snap(page, 'export-completion-04-larger-view');
    await node.getByRole('button', { name: 'Smaller view' }).click();
    await expect
      .poll(() => editor().evaluate((el) => (el.closest('.cm-editor') as HTMLElement).getBoundingClientRect().height))
      .toBeLessThanOrEqual(capped + 1);
    expect(problems).toEqual([]);
  });
});
