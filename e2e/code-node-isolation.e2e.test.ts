// Isolation (issue 31) as a person uses it, in real Chromium against the real web host: a pack
// (@iso/lines, written below into the data dir) is declared on node-1, the node is granted a
// fetch host, and its chip's "Isolate @iso/lines" checkbox is turned on. The picker and the
// capability preview then say the module runs isolated instead of listing the node's grants; the
// saved workflow file carries `isolation: true` (and loses the key when it is turned off), the
// heading tracks the toggle as an unsaved change; both Run buttons (code.run in the main process
// and the browser runner in this window) show the module cut off from the node's globals and
// fetch, and a receipt that lists it as isolated with the node's calls into it and its denied
// fetch. Each state is saved under e2e/artifacts/.

import { expect, test } from '@playwright/test';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Locator, Page } from 'playwright-core';
import { fixtureDataDir, type TempDir } from '../electron/testing/test-support.ts';
import { startAppSession, type AppSession } from './app-session.ts';
import { BUILD, snap } from './support.ts';

let data: TempDir;
let app: AppSession;
let page: Page;
let problems: string[];

test.describe.configure({ mode: 'serial' });

const SPEC = '@iso/lines';
const SENTENCE = "@iso/lines runs isolated: it cannot reach this node's network, workspace or secrets, and sees only the values passed to it.";
/** What the pack does: parse lines (pure), read a global the node sets, and try the node's fetch. */
const PACK_SOURCE = `export function parse(text) {
  return text.split("\\n").filter((line) => line !== "").map((line) => line.split(":").map((part) => part.trim()));
}
export function peek() {
  return typeof globalThis.nodeMarker;
}
export async function reach() {
  try {
    await fetch("https://api.example.com/");
    return "reached";
  } catch (e) {
    return "failed:" + e.code;
  }
}
`;
/** Never calls reach(): run without isolation this would be a real request to the granted host. */
const PURE_CODE = `import { parse, peek } from "@iso/lines";
globalThis.nodeMarker = "set by the node";
const rows = parse("name: Ada\\nlang: js").length + parse("x: 1").length;
return [rows, peek()].join(" ");`;
const REACH_CODE = `import { parse, peek, reach } from "@iso/lines";
globalThis.nodeMarker = "set by the node";
const rows = parse("name: Ada\\nlang: js").length + parse("x: 1").length;
return [rows, peek(), await reach()].join(" ");`;

async function writePack(dir: string): Promise<void> {
  await mkdir(path.join(dir, 'sandbox'), { recursive: true });
  await writeFile(path.join(dir, 'sandbox', 'lines.js'), PACK_SOURCE);
  await writeFile(
    path.join(dir, 'package.json'),
    JSON.stringify({
      name: SPEC,
      version: '1.0.0',
      description: 'Parses "key: value" lines.',
      nodetool: { apiVersion: 1, sandboxModules: [{ name: '.', kind: 'js', file: 'sandbox/lines.js', description: 'Parses "key: value" lines.' }] },
    }),
  );
}

test.beforeAll(async ({ browser }) => {
  test.setTimeout(300_000);
  data = await fixtureDataDir();
  await writePack(path.join(data.path, 'node_modules/@iso/lines'));
  app = await startAppSession(browser, data.path, BUILD);
  ({ page, problems } = await app.openApp({ width: 1280, height: 900 }));
  await page.getByRole('navigation', { name: 'Screens' }).getByRole('button', { name: 'Workflows' }).click();
  await editor().waitFor();
});

test.afterAll(async () => {
  await app?.close();
  await data?.remove();
});

const editor = () => page.getByLabel('Code of node-1', { exact: true });
const heading = () => page.getByRole('heading', { level: 2 }).filter({ hasText: /^Workflow/ });
const chips = () => page.getByRole('list', { name: 'Selected for node-1' });
const isolate = () => chips().getByRole('checkbox', { name: `Isolate ${SPEC}` });
const preview = () => page.getByRole('region', { name: 'Capability preview' });
const lastRun = () => page.getByRole('group', { name: 'Last run of node-1' });
const inWindow = () => page.getByRole('region', { name: 'In this window: node-1' });
const savedFile = async () => JSON.parse(await readFile(path.join(data.path, 'workflows', 'iso.json'), 'utf8')) as { nodes: { packages: unknown[] }[] };
/** The value shown under "Receipt" for `term` (the receipt is a <dl>). */
const receiptValue = (output: Locator, term: string) =>
  output.locator('dl.receipt dt', { hasText: new RegExp(`^${term}$`) }).locator('xpath=following-sibling::dd[1]');

async function save(): Promise<void> {
  await page.getByRole('button', { name: 'Save workflow' }).click();
  await heading()
    .filter({ hasText: /^Workflow: iso$/ })
    .waitFor();
}

async function runInApp(expected: string): Promise<Locator> {
  await page.getByRole('button', { name: 'Run node-1', exact: true }).click();
  await lastRun().getByLabel('Result value').filter({ hasText: expected }).waitFor({ timeout: 60_000 });
  return lastRun().getByRole('region', { name: 'Run result' });
}

async function runHere(expected: string): Promise<Locator> {
  await inWindow().getByRole('button', { name: 'Run in this window (node-1)' }).click();
  await inWindow().getByLabel('Result value').filter({ hasText: expected }).waitFor({ timeout: 60_000 });
  return inWindow().getByRole('region', { name: 'Run result' });
}

test.describe('an isolated module on a Code node', () => {
  test('without isolation: the trust sentence and the node grants apply, and the pack sees the node global', async () => {
    await page.getByRole('combobox', { name: 'Add a module to node-1' }).fill(SPEC);
    await page.getByRole('listbox', { name: 'Modules to add to node-1' }).getByRole('option', { name: SPEC, exact: true }).click();
    await isolate().waitFor();
    expect(await isolate().isChecked()).toBe(false);
    await page.getByLabel('Fetch hosts (comma-separated)').fill('api.example.com');
    await preview().getByText('network: fetch to api.example.com').waitFor();
    expect(await page.getByText("Importing a module means trusting it with that node's sandbox capabilities").count()).toBe(1);
    expect(await page.getByText('runs isolated').count()).toBe(0);

    await editor().fill(PURE_CODE);
    const output = await runInApp('"3 string"');
    expect(await receiptValue(output, 'Denied').textContent()).toBe('nothing');
    expect(await output.locator('dl.receipt dt', { hasText: /^Isolated$/ }).count()).toBe(0);

    await page.getByLabel('Name', { exact: true }).fill('iso');
    await save();
    expect((await savedFile()).nodes[0]!.packages).toEqual([expect.objectContaining({ specifier: SPEC })]);
    expect((await savedFile()).nodes[0]!.packages[0]).not.toHaveProperty('isolation');
  });

  test('Isolate changes the consent text in the picker and the preview, is an unsaved edit, and is saved on the declaration', async () => {
    await isolate().check();
    await heading().filter({ hasText: 'Workflow: iso (unsaved changes)' }).waitFor();
    await chips().getByText(SENTENCE, { exact: true }).waitFor();
    await preview().getByText(SENTENCE, { exact: true }).waitFor();
    expect(await preview().getByText('network: fetch to api.example.com').count()).toBe(0);
    // The sentence over the picker still covers every module that is not isolated.
    expect(await page.getByText("Importing a module means trusting it with that node's sandbox capabilities").count()).toBe(1);
    // The last run answered the declaration as it was.
    await lastRun().getByRole('note').filter({ hasText: 'Stale: the code or packages changed since this run.' }).waitFor();
    await snap(page, 'code-node-isolation-01-isolated');

    await save();
    expect((await savedFile()).nodes[0]!.packages).toEqual([expect.objectContaining({ specifier: SPEC, isolation: true })]);
    // Off removes the key (an unsaved edit again); on again, and saved.
    await isolate().uncheck();
    await heading().filter({ hasText: '(unsaved changes)' }).waitFor();
    await preview().getByText('network: fetch to api.example.com').waitFor();
    expect(await page.getByText('runs isolated').count()).toBe(0);
    await save();
    expect((await savedFile()).nodes[0]!.packages[0]).not.toHaveProperty('isolation');
    await isolate().check();
    await save();
    expect((await savedFile()).nodes[0]!.packages[0]).toMatchObject({ specifier: SPEC, isolation: true });
  });

  test('Run in the app: the pack sees none of the node globals or fetch, and the receipt lists it isolated with its calls and its denial', async () => {
    await editor().fill(REACH_CODE);
    const output = await runInApp('"3 undefined failed:capability-denied"');
    expect(await receiptValue(output, 'Isolated').textContent()).toBe('@iso/lines — isolated · parse ×2, peek ×1, reach ×1');
    const denied = (await receiptValue(output, 'Denied').textContent()) ?? '';
    expect(denied).toContain("@iso/lines runs isolated and can reach none of this node's network, workspace or secrets.");
    expect(denied).toMatch(/^capability fetch from /);
    expect(denied).toMatch(/\(capability-denied\)$/);
    expect(await receiptValue(output, 'Calls').textContent()).toBe('capability fetch denied (see Denied)');
    await output.scrollIntoViewIfNeeded();
    await snap(page, 'code-node-isolation-02-run-in-app');
  });

  test('Run in this window passes the isolation to the browser runner: the same value and receipt lines', async () => {
    const output = await runHere('"3 undefined failed:capability-denied"');
    const main = lastRun().getByRole('region', { name: 'Run result' });
    for (const term of ['Isolated', 'Denied', 'Calls']) {
      expect(await receiptValue(output, term).textContent()).toBe(await receiptValue(main, term).textContent());
    }
    expect(await receiptValue(output, 'Isolated').textContent()).toBe('@iso/lines — isolated · parse ×2, peek ×1, reach ×1');
    await output.scrollIntoViewIfNeeded();
    await snap(page, 'code-node-isolation-03-run-in-window');

    // Turned off, the same code in this window: the pack sees the node global, and nothing is listed isolated.
    await isolate().uncheck();
    await editor().fill(PURE_CODE);
    const plain = await runHere('"3 string"');
    expect(await plain.locator('dl.receipt dt', { hasText: /^Isolated$/ }).count()).toBe(0);
    expect(problems).toEqual([]);
  });
});
