// Issue 29 item 6, as a person meets it: the registry accepts the connection and never answers
// (a real TCP server on 127.0.0.1 that writes nothing back; the real npm). The Install panel shows
// the elapsed time while it waits and, after a while, that the install gives up on its own; Cancel
// stops it, the panel says it was cancelled and undone, and the root is as it was: the pack
// installed before is still there and active, the one asked for is nowhere.

import { expect, test } from '@playwright/test';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { journalPath } from '../electron/install/journal.ts';
import { runNpm } from '../electron/install/npm-runner.ts';
import { startSilentRegistry, type SilentRegistry } from '../electron/testing/silent-registry.ts';
import { tempDir, type TempDir } from '../electron/testing/test-support.ts';
import { startAppSession, type AppSession } from './app-session.ts';
import { BUILD, REPO_ROOT, snap } from './support.ts';

const EVOLVING = '@sp-fixture/evolving';
const SILENT_PACK = '@sp-fixture/never-answers';

let silent: SilentRegistry;
let data: TempDir;
let tarballs: string;
let app: AppSession;
let page: Page;
let problems: string[];

test.describe.configure({ mode: 'serial' });

test.beforeAll(async ({ browser }) => {
  test.setTimeout(180_000);
  silent = await startSilentRegistry();
  tarballs = await mkdtemp(path.join(os.tmpdir(), 'sp-e2e-cancel-'));
  const packed = await runNpm(['pack', path.join(REPO_ROOT, 'fixtures/registry-packs/evolving-1.0.0'), '--pack-destination', tarballs, '--ignore-scripts'], {
    cwd: tarballs,
  });
  expect(packed.code).toBe(0);
  data = await tempDir('e2e-cancel');
  app = await startAppSession(browser, data.path, BUILD);
  await app.useRegistry(silent.url);
  // What the user had before: one pack, from a local tarball (no registry needed).
  const first = await app.services.dispatcher.handle('packs.install', { spec: path.join(tarballs, 'sp-fixture-evolving-1.0.0.tgz') }, { face: 'test' });
  expect(first).toMatchObject({ ok: true, value: { name: EVOLVING, status: 'active' } });
  ({ page, problems } = await app.openApp({ width: 1280, height: 800 }));
});

test.afterAll(async () => {
  await app?.close();
  await data?.remove();
  await silent?.close();
  if (tarballs) await rm(tarballs, { recursive: true, force: true });
});

test('an install waiting on a silent registry shows its elapsed time, and Cancel undoes it', async () => {
  test.setTimeout(120_000);
  const rootFiles = () => ({
    packageJson: readFileSync(path.join(data.path, 'package.json'), 'utf8'),
    lockfile: readFileSync(path.join(data.path, 'package-lock.json'), 'utf8'),
  });
  const before = rootFiles();
  const seen = silent.connections();

  await page.getByRole('navigation', { name: 'Screens' }).getByRole('button', { name: 'Packages' }).click();
  await page.getByLabel('Package spec').fill(SILENT_PACK);
  await page.getByRole('button', { name: 'Install', exact: true }).click();
  await silent.waitForConnections(seen + 1);

  const elapsed = page.getByLabel('Elapsed time');
  await expect(elapsed).toHaveText(/^\d+ s elapsed/);
  // After 15 s the line says the install gives up on its own (it would, after about a minute).
  await expect(elapsed).toContainText('the registry is slow to answer; the install gives up on its own', { timeout: 25_000 });
  await expect(page.getByRole('status')).toHaveText('Fetching (install scripts disabled)…');
  await snap(page, 'install-cancel-01-waiting');

  await page.getByRole('button', { name: 'Cancel', exact: true }).click();
  const alert = page.getByRole('alert');
  await expect(alert).toContainText(
    `Install cancelled: Stopped installing ${SILENT_PACK} at your request. Nothing was installed; the packs are as they were.`,
    { timeout: 15_000 },
  );
  await expect(page.getByRole('status')).toHaveText('Cancelled.');
  await expect(elapsed).toHaveCount(0);
  await snap(page, 'install-cancel-02-cancelled');

  // The state is clean: the pack from before is listed and active, the cancelled one nowhere.
  const listed = (await app.services.dispatcher.handle('packs.list', {}, { face: 'test' })) as {
    ok: boolean;
    value?: { packs: { name: string; status: string }[] };
  };
  expect(listed.value?.packs.map((p) => `${p.name} ${p.status}`)).toEqual([`${EVOLVING} active`]);
  expect(rootFiles()).toEqual(before);
  expect(existsSync(journalPath(data.path))).toBe(false);
  expect(existsSync(path.join(data.path, 'node_modules/@sp-fixture/never-answers'))).toBe(false);
  const installed = page.getByRole('tabpanel');
  await expect(installed).toContainText(EVOLVING);
  await expect(installed).not.toContainText(SILENT_PACK);
  // Nothing runs under that id any more: a second Cancel is answered, and changes nothing.
  expect(await app.services.dispatcher.handle('packs.cancel', { operationId: 'install-none' }, { face: 'test' })).toEqual({
    ok: true,
    value: { cancelled: false },
  });
  expect(problems).toEqual([]);
});
