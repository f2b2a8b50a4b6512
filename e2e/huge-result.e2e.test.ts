// Huge results do not freeze the page (issue 29 item 5), in real Chromium against the real web
// host and sandbox: a 20,000,000-character string and a 200,000-row array are rendered capped
// (a string's head with "Show more", a paged table of rows), with their size and a download of
// the whole result; the page stays short and typing in the editor stays quick. The figures
// (time to render, page height, input latency) are printed for the report.

import { expect, test } from '@playwright/test';
import { readFile } from 'node:fs/promises';
import type { Browser, Page } from 'playwright-core';
import type { AppServices } from '../electron/services/app-services.ts';
import type { WebHost } from '../electron/server/web-host.ts';
import { fixtureDataDir, type TempDir, startAppHost } from '../electron/testing/test-support.ts';
import { BUILD, snap, watchProblems } from './support.ts';

let data: TempDir;
let services: AppServices;
let host: WebHost;
let browser: Browser;
let page: Page;
let problems: string[];

test.describe.configure({ mode: 'serial' });

test.beforeAll(async ({ browser: sharedBrowser }) => {
  test.setTimeout(300_000);
  data = await fixtureDataDir();
  ({ services, host } = await startAppHost(data.path, BUILD));
  browser = sharedBrowser;
  page = await browser.newPage({ viewport: { width: 1280, height: 900 }, acceptDownloads: true });
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
const last = () => page.getByRole('group', { name: 'Last run of node-1' });

/** Run the node's code and time it from the click until the result is on screen. */
async function runAndTime(code: string, shown: (p: Page) => Promise<void>): Promise<{ renderMs: number; runMs: number }> {
  await editor().fill(code);
  const started = Date.now();
  await page.getByRole('button', { name: 'Run node-1' }).click();
  await shown(page);
  // The next frame: whatever the result's render costs has been paid.
  await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => resolve(undefined))));
  const renderMs = Date.now() - started;
  const time = (await last().locator('dt', { hasText: 'Time' }).locator('xpath=following-sibling::dd[1]').textContent()) ?? '';
  return { renderMs, runMs: Number.parseFloat(time) };
}

/** Page height in CSS pixels, and the mean time for a key typed in the editor to be handled. */
async function pageFigures(): Promise<{ heightPx: number; keyMs: number }> {
  const heightPx = await page.evaluate(() => document.documentElement.scrollHeight);
  await editor().press('Control+End');
  const keys = 'abcdefghij';
  const started = Date.now();
  for (const key of keys) await page.keyboard.press(key);
  await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => resolve(undefined))));
  const keyMs = (Date.now() - started) / keys.length;
  return { heightPx, keyMs };
}

test.describe('a huge result', () => {
  test('a 20,000,000-character string shows its head, its size, Show more and a download of the whole', async () => {
    const timing = await runAndTime('return "x".repeat(20_000_000);', async () => {
      await last().getByText('String of 20,000,000 characters', { exact: false }).waitFor({ timeout: 120_000 });
    });
    const figures = await pageFigures();
    console.log(`[figures] 20M string: ${JSON.stringify({ ...timing, ...figures })}`);
    const value = last().getByLabel('Result value');
    expect((await value.textContent())?.length).toBe(10_000);
    await snap(page, 'huge-result-01-string');
    await last().getByRole('button', { name: 'Show more' }).click();
    // The click re-renders in a later task: wait for what it shows, then check the text's length.
    await expect(last().getByText('Showing 20,000 of 20,000,000 characters.')).toHaveCount(1);
    expect((await value.textContent())?.length).toBe(20_000);
    const [download] = await Promise.all([page.waitForEvent('download'), last().getByRole('button', { name: 'Download the whole result' }).click()]);
    expect(download.suggestedFilename()).toBe('node-1-result.txt');
    const saved = await download.path();
    expect((await readFile(saved, 'utf8')).length).toBe(20_000_000);
    expect(figures.heightPx).toBeLessThan(4_000);
    expect(figures.keyMs).toBeLessThan(500);
  });

  test('a 200,000-row array of objects is a paged table with its row count and a JSON download', async () => {
    const code = 'return Array.from({ length: 200000 }, (_, i) => ({ id: i, name: "row " + i, even: i % 2 === 0 }));';
    const timing = await runAndTime(code, async () => {
      await last().getByText('200,000 rows', { exact: false }).first().waitFor({ timeout: 120_000 });
    });
    const figures = await pageFigures();
    console.log(`[figures] 200k rows: ${JSON.stringify({ ...timing, ...figures })}`);
    const table = last().getByRole('table', { name: 'Result rows' });
    expect(await table.locator('thead th').allTextContents()).toEqual(['#', 'id', 'name', 'even']);
    expect(await table.locator('tbody tr').count()).toBe(50);
    expect(await table.locator('tbody tr').first().locator('td').allTextContents()).toEqual(['0', '0', 'row 0', 'true']);
    expect(await last().getByText('Rows 1–50 of 200,000').count()).toBe(1);
    await snap(page, 'huge-result-02-rows');
    await last().getByRole('button', { name: 'Next rows' }).click();
    await expect(table.locator('tbody tr').first().locator('td')).toHaveText(['50', '50', 'row 50', 'true']);
    await last().getByRole('button', { name: 'Last rows' }).click();
    await expect(last().getByText('Rows 199,951–200,000 of 200,000')).toHaveCount(1);
    const [download] = await Promise.all([page.waitForEvent('download'), last().getByRole('button', { name: 'Download the whole result' }).click()]);
    expect(download.suggestedFilename()).toBe('node-1-result.json');
    const rows = JSON.parse(await readFile(await download.path(), 'utf8')) as unknown[];
    expect(rows.length).toBe(200_000);
    expect(figures.heightPx).toBeLessThan(4_000);
    expect(figures.keyMs).toBeLessThan(500);
  });

  test('a large nested object is a collapsible tree that lists a bounded number of entries at a time', async () => {
    const code = 'const out = {}; for (let i = 0; i < 5000; i++) out["k" + i] = { n: i, tags: ["a", "b"] }; return { meta: { count: 5000 }, items: out };';
    await runAndTime(code, async () => {
      await last().getByRole('list', { name: 'Result value' }).waitFor({ timeout: 60_000 });
    });
    const tree = last().getByRole('list', { name: 'Result value' });
    const items = tree.locator('details').filter({ has: page.locator('summary', { hasText: /^items/ }) });
    await items.locator('summary').first().click();
    // <details> fires its toggle event in a later task and the entries render after it: a count
    // taken at once can see the closed tree (CI did), so wait for the entries to be shown.
    await expect(items.getByText('Show 100 more of 4,900', { exact: false })).toHaveCount(1);
    await snap(page, 'huge-result-03-tree');
    expect(problems).toEqual([]);
  });
});
