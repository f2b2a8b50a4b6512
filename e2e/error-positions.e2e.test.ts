// A runtime error in the real app names the user's own line and marks it in the editor, for both
// runners: "Run node-1" (code.run in the main process's sandbox pool) and "Run in this window"
// (the browser runner in this page). The code fails on line 5 by reading a property of null —
// an error quickjs-ng itself places on line 1 — and the failure text and the editor's lint mark
// both say line 5; once the code changes the mark goes, and the window run marks its own line.

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

test.describe.configure({ mode: 'serial' });

test.beforeAll(async ({ browser }) => {
  test.setTimeout(300_000);
  data = await fixtureDataDir(path.join(REPO_ROOT, 'fixtures/discovery/good/node_modules/@acme/geo'));
  app = await startAppSession(browser, data.path, BUILD);
  ({ page, problems } = await app.openApp());
  await page.getByRole('navigation', { name: 'Screens' }).getByRole('button', { name: 'Workflows' }).click();
  await page.getByLabel('Code of node-1').waitFor();
});

test.afterAll(async () => {
  await app?.close();
  await data?.remove();
});

const FAILS_ON_LINE_5 = 'console.log("start");\nconst x = null;\nconst a = 1;\nconst b = 2;\nreturn x.y;';
const editor = () => page.getByLabel('Code of node-1', { exact: true });
/** The 1-based numbers of the editor lines that hold an error mark. */
const markedLines = () =>
  editor().evaluate((el) => [...el.querySelectorAll(':scope > .cm-line')].flatMap((line, i) => (line.querySelector('.cm-lintRange-error') ? [i + 1] : [])));

async function until(check: () => Promise<boolean>, timeoutMs = 15_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

test.describe('a runtime error on line 5', () => {
  test('run in the app: the failure says line 5 and the editor marks line 5', async () => {
    await editor().fill(FAILS_ON_LINE_5);
    await page.getByRole('button', { name: 'Run node-1', exact: true }).click();
    const result = page.getByRole('group', { name: 'Last run of node-1' });
    await result.getByText("TypeError: cannot read property 'y' of null (line 5, column 10)", { exact: true }).waitFor({ timeout: 60_000 });
    await until(async () => (await markedLines()).includes(5));
    expect(await markedLines()).toEqual([5]);
    expect(await editor().locator('.cm-lintRange-error').allTextContents()).toEqual(['y']);
    await editor().locator('.cm-lintRange-error').hover();
    await page
      .locator('.cm-tooltip-lint')
      .getByText("The run in the app failed: TypeError: cannot read property 'y' of null (line 5, column 10)", { exact: false })
      .waitFor();
    await snap(page, 'error-positions-01-app-run-line-5');
  });

  test('the mark goes once the code changes, and a run in this window marks its own line', async () => {
    await editor().fill(`// moved down one line\n${FAILS_ON_LINE_5}`);
    await until(async () => (await markedLines()).length === 0);
    const window = page.getByRole('region', { name: 'In this window: node-1' });
    await window.getByRole('button', { name: 'Run in this window (node-1)' }).click();
    await window.getByText("TypeError: cannot read property 'y' of null (line 6, column 10)", { exact: true }).waitFor({ timeout: 60_000 });
    await until(async () => (await markedLines()).includes(6));
    expect(await markedLines()).toEqual([6]);
    await editor().locator('.cm-lintRange-error').hover();
    await page.locator('.cm-tooltip-lint').getByText('The run in this window failed:', { exact: false }).waitFor();
    await snap(page, 'error-positions-02-window-run-line-6');
  });

  test('a name the sandbox lacks is marked where it is used, in both runners', async () => {
    await editor().fill('const a = 1;\n\n\nsetTimeout(() => a, 10);');
    await page.getByRole('button', { name: 'Run node-1', exact: true }).click();
    await page
      .getByRole('group', { name: 'Last run of node-1' })
      .getByText('ReferenceError: setTimeout is not defined (line 4, column 1)', { exact: true })
      .waitFor({ timeout: 60_000 });
    const window = page.getByRole('region', { name: 'In this window: node-1' });
    await window.getByRole('button', { name: 'Run in this window (node-1)' }).click();
    await window.getByText('ReferenceError: setTimeout is not defined (line 4, column 1)', { exact: true }).waitFor({ timeout: 60_000 });
    await until(async () => (await markedLines()).includes(4));
    expect(await markedLines()).toEqual([4]);
    expect(await editor().locator('.cm-lintRange-error').allTextContents()).toEqual(['setTimeout']);
    // Both runs failed on the same word: its tooltip lists each.
    await editor().locator('.cm-lintRange-error').hover();
    const tooltip = page.locator('.cm-tooltip-lint');
    await tooltip.getByText('The run in the app failed: ReferenceError: setTimeout is not defined (line 4, column 1)', { exact: false }).waitFor();
    await tooltip.getByText('The run in this window failed: ReferenceError: setTimeout is not defined (line 4, column 1)', { exact: false }).waitFor();
    await snap(page, 'error-positions-03-undefined-name');
    expect(problems).toEqual([]);
  });
});
