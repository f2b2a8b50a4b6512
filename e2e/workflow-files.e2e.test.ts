// The Workflows screen's saved files (issue 29 item 10), in real Chromium against the real web
// host: a first visit opens the example workflow first run saved (as the README promises), not
// an unsaved "return 1 + 1" draft; Rename… refuses a name that is taken and keeps unsaved edits;
// Delete… asks first, and deleting the open workflow keeps its contents as unsaved changes.

import { expect, test } from '@playwright/test';
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { EXAMPLE, EXAMPLE_WORKFLOW } from '../electron/first-run/first-run.ts';
import type { AppServices } from '../electron/services/app-services.ts';
import type { WebHost } from '../electron/server/web-host.ts';
import { createWorkflowStore } from '../electron/services/workflow-store.ts';
import { fixtureDataDir, type TempDir, startAppHost } from '../electron/testing/test-support.ts';
import { WorkflowSchema } from '../shared/protocol/workflow.ts';
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
  const store = createWorkflowStore(data.path, WorkflowSchema);
  await store.save(EXAMPLE_WORKFLOW, EXAMPLE);
  await store.save('other', { nodes: [{ id: 'node-1', type: 'code', code: 'return "other";\n', packages: [] }] });
  ({ services, host } = await startAppHost(data.path, BUILD));
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
});

const heading = () => page.getByRole('heading', { level: 2 }).filter({ hasText: /^Workflow/ });
const saved = () => page.getByLabel('Saved', { exact: true });
const editor = (node: string) => page.getByLabel(`Code of ${node}`, { exact: true });
const files = async () => (await readdir(path.join(data.path, 'workflows'))).filter((f) => f.endsWith('.json')).sort();
const dialog = () => page.getByRole('dialog');

test.describe('saved workflows', () => {
  test('a first visit opens the example workflow the README promises', async () => {
    await page.getByRole('navigation', { name: 'Screens' }).getByRole('button', { name: 'Workflows' }).click();
    await editor('example').waitFor();
    expect(await heading().textContent()).toBe(`Workflow: ${EXAMPLE_WORKFLOW}`);
    expect(await editor('example').textContent()).toContain('import { load } from "@nodetool-ai/sandbox-yaml";');
    expect(await page.getByLabel('Code of node-1').count()).toBe(0);
    expect(await saved().inputValue()).toBe(EXAMPLE_WORKFLOW);
    await snap(page, 'workflow-files-01-example-on-first-visit');
  });

  test('Rename… refuses a taken name, renames the file and keeps unsaved edits', async () => {
    await editor('example').press('Control+End');
    await page.keyboard.type('// my note');
    await heading().filter({ hasText: '(unsaved changes)' }).waitFor();
    await page.getByRole('button', { name: 'Rename…' }).click();
    const name = dialog().getByLabel('New name');
    await name.fill('other');
    await dialog().getByRole('alert').filter({ hasText: 'A workflow named "other" is saved already; choose another name.' }).waitFor();
    expect(await dialog().getByRole('button', { name: 'Rename', exact: true }).isDisabled()).toBe(true);
    await snap(page, 'workflow-files-02-rename-taken');
    await name.fill('trip');
    await dialog().getByRole('button', { name: 'Rename', exact: true }).click();
    await page
      .getByRole('status')
      .filter({ hasText: `Renamed "${EXAMPLE_WORKFLOW}" to "trip".` })
      .waitFor();
    expect(await heading().textContent()).toBe('Workflow: trip (unsaved changes)');
    expect(await editor('example').textContent()).toContain('// my note');
    expect(await files()).toEqual(['other.json', 'trip.json']);
    await page.waitForFunction(() => (document.querySelector<HTMLSelectElement>('select')?.value ?? '') === 'trip');
    expect(await saved().locator('option').allTextContents()).toEqual(['(unsaved)', 'other', 'trip']);
    await snap(page, 'workflow-files-03-renamed');
  });

  test('Delete… asks first; deleting the open workflow keeps its contents as unsaved changes', async () => {
    await saved().selectOption('other');
    await page.getByRole('button', { name: 'Delete…' }).click();
    expect(await dialog().getByRole('heading').textContent()).toBe('Delete "other"?');
    await snap(page, 'workflow-files-04-delete-asks');
    await dialog().getByRole('button', { name: 'Cancel' }).click();
    expect(await files()).toEqual(['other.json', 'trip.json']);
    await page.getByRole('button', { name: 'Delete…' }).click();
    await dialog().getByRole('button', { name: 'Delete workflow' }).click();
    await page.getByRole('status').filter({ hasText: 'Deleted "other".' }).waitFor();
    expect(await files()).toEqual(['trip.json']);
    // The open workflow was not the one deleted: the editor still shows "trip" with its edit.
    expect(await heading().textContent()).toBe('Workflow: trip (unsaved changes)');

    await page.getByRole('button', { name: 'Save workflow' }).click();
    await heading()
      .filter({ hasText: /^Workflow: trip$/ })
      .waitFor();
    await saved().selectOption('trip');
    await page.getByRole('button', { name: 'Delete…' }).click();
    expect(await dialog().textContent()).toContain('It is open in the editor: its contents stay there as unsaved changes');
    await dialog().getByRole('button', { name: 'Delete workflow' }).click();
    await page.getByRole('status').filter({ hasText: 'Deleted "trip".' }).waitFor();
    expect(await files()).toEqual([]);
    expect(await heading().textContent()).toBe('Workflow: trip (unsaved changes)');
    expect(await editor('example').textContent()).toContain('// my note');
    expect(await saved().inputValue()).toBe('');
    await snap(page, 'workflow-files-05-deleted-open-kept');
    // Saving again brings it back.
    await page.getByRole('button', { name: 'Save workflow' }).click();
    await heading()
      .filter({ hasText: /^Workflow: trip$/ })
      .waitFor();
    expect(await files()).toEqual(['trip.json']);
    expect(problems).toEqual([]);
  });
});
