// Issue 29 in Chromium, against the real web host, services, npm and a real local Verdaccio: the
// Details of a pack that waits for trust show its modules, their exports and its SKILL.md (read
// from its files; nothing of it ran); an update that turns a sandbox-only pack into one with host
// code says so, names the nodes that stop working and keeps the old version on Cancel; and a node
// whose pack was removed offers Install for the version it was saved with, after which it runs.
// Each new state is saved under e2e/artifacts/.

import { expect, test } from '@playwright/test';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { tempDir, type TempDir } from '../electron/testing/test-support.ts';
import { startRegistry, type TestRegistry } from '../electron/testing/verdaccio.ts';
import { startAppSession, type AppSession } from './app-session.ts';
import { BUILD, REPO_ROOT, snap } from './support.ts';

const FIXTURES = path.join(REPO_ROOT, 'fixtures/registry-packs');
const DOCUMENTED = '@sp-fixture/documented-hybrid';
const EVOLVING = '@sp-fixture/evolving';
const SHRINKING = '@sp-fixture/shrinking';

let registry: TestRegistry;
let data: TempDir;
let app: AppSession;
let page: Page;
let problems: string[];

// Tests of a suite share its host, registry and page, so they run in order; a failure skips the rest.
test.describe.configure({ mode: 'serial' });

test.beforeAll(async ({ browser }) => {
  test.setTimeout(300_000);
  registry = await startRegistry({ uplink: false });
  for (const dir of ['documented-hybrid-1.0.0', 'evolving-1.0.0', 'evolving-2.0.0', 'shrinking-1.0.0', 'shrinking-2.0.0'])
    await registry.publish(path.join(FIXTURES, dir));
  data = await tempDir('e2e-details');
  app = await startAppSession(browser, data.path, BUILD);
  await app.useRegistry(registry.url);
  ({ page, problems } = await app.openApp({ width: 1280, height: 900 }));
});

test.afterAll(async () => {
  await app?.close();
  await data?.remove();
  await registry?.stop();
});

const call = (method: string, payload: unknown) => app.services.dispatcher.handle(method, payload, { face: 'test' });
const card = (name: string, version: string) => page.getByRole('article', { name: `${name} ${version}`, exact: true });
const screen = (name: string) => page.getByRole('navigation', { name: 'Screens' }).getByRole('button', { name, exact: true }).click();

async function install(spec: string, outcome: string): Promise<void> {
  await page.getByLabel('Package spec').fill(spec);
  await page.getByRole('button', { name: 'Install', exact: true }).click();
  await page.getByLabel('Install result').getByText(outcome).waitFor({ timeout: 90_000 });
}

test.describe('details, update capability and the fix for a removed pack (issue 29)', () => {
  test('Details of a pack that waits for trust show its modules, what they export and its SKILL.md under the banner', async () => {
    await install(DOCUMENTED, `${DOCUMENTED}@1.0.0 needs trust`);
    const mine = card(DOCUMENTED, '1.0.0');
    await mine.getByText('needs trust · inactive', { exact: true }).waitFor();
    await mine.getByRole('button', { name: `Details of ${DOCUMENTED}`, exact: true }).click();
    const details = page.getByRole('region', { name: DOCUMENTED, exact: true });
    const rows = details.getByRole('list', { name: 'Modules' }).getByRole('listitem');
    await rows.first().waitFor({ timeout: 30_000 });
    expect(await rows.allTextContents()).toEqual([
      `${DOCUMENTED} js not active exports greet, greeting`,
      `${DOCUMENTED}/text js not active exports default, shout`,
    ]);
    expect(await details.getByRole('note').first().textContent()).toBe(
      `${DOCUMENTED} is not active, so none of its code has run: the modules and exports below were read from its files, and load once you trust it.`,
    );
    const doc = details.getByRole('article', { name: `Documentation of ${DOCUMENTED}` });
    await doc.waitFor();
    expect(await doc.getByRole('note').textContent()).toContain('whom you have not trusted');
    expect(await doc.getByRole('heading', { name: 'Documented hybrid' }).count()).toBe(1);
    expect(await doc.textContent()).toContain('Import greet from @sp-fixture/documented-hybrid and call greet("Ada").');
    expect(await details.getByText('No sandbox modules (host code only).').count()).toBe(0);
    expect(await details.getByText(/No pack named/).count()).toBe(0);
    // Reading it ran nothing: the pack is still exactly as installed, waiting for trust.
    expect(await call('packs.list', {})).toMatchObject({ ok: true, value: { packs: [{ name: DOCUMENTED, status: 'needs-trust', trusted: false }] } });
    await snap(page, '29-03-details-before-trust');
    await details.getByRole('button', { name: `Close details of ${DOCUMENTED}` }).click();
  });

  test('an update that adds host code says so, names the nodes that stop working, and Keep leaves the old version', async () => {
    await install(`${EVOLVING}@1.0.0`, `Installed ${EVOLVING}@1.0.0`);
    const saved = await call('workflows.save', {
      name: 'evolving-flow',
      workflow: { nodes: [{ id: 'n1', type: 'code', code: `import { version } from "${EVOLVING}";\nreturn version;`, packages: [{ specifier: EVOLVING }] }] },
    });
    expect(saved.ok).toBe(true);
    const mine = card(EVOLVING, '1.0.0');
    await mine.getByRole('button', { name: `Update ${EVOLVING} to 2.0.0…`, exact: true }).click({ timeout: 30_000 });
    const dialog = page.getByRole('dialog', { name: `Update ${EVOLVING} to 2.0.0?` });
    const change = dialog.getByRole('group', { name: 'What the update changes outside the sandbox' });
    await change.getByRole('list', { name: 'Nodes that stop working' }).waitFor();
    expect(await change.getByRole('list', { name: 'What the new version adds' }).getByRole('listitem').allTextContents()).toEqual([
      '2.0.0 adds host code: its register entry register.js runs on your computer, outside the sandbox, each time the app loads packs.',
    ]);
    expect(await change.textContent()).toContain(
      `After the update, ${EVOLVING} is inactive until you trust 2.0.0: its sandbox modules stop working until then.`,
    );
    expect(await change.getByRole('list', { name: 'Nodes that stop working' }).textContent()).toBe(
      `Workflow evolving-flow, node n1 stops working: uses ${EVOLVING}`,
    );
    expect(await dialog.getByRole('button', { name: 'Update anyway', exact: true }).count()).toBe(1);
    await snap(page, '29-04-update-adds-host-code');
    await dialog.getByRole('button', { name: 'Keep 1.0.0', exact: true }).click();
    await dialog.waitFor({ state: 'detached' });
    // Nothing changed: still 1.0.0, sandbox-only and active.
    const listed = await call('packs.list', {});
    expect(listed).toMatchObject({ ok: true });
    const row = (listed as { value: { packs: { name: string; version: string; installMode: string; status: string }[] } }).value.packs.find(
      (p) => p.name === EVOLVING,
    );
    expect(row).toMatchObject({ version: '1.0.0', installMode: 'sandbox-only', status: 'active' });
    await mine.getByText('sandbox-only · active', { exact: true }).waitFor();
  });

  test('a node whose pack was removed offers Install for the version it was saved with, and then runs', async () => {
    await install(`${SHRINKING}@1.0.0`, `Installed ${SHRINKING}@1.0.0`);
    const saved = await call('workflows.save', {
      name: 'fix-flow',
      workflow: {
        nodes: [
          {
            id: 'n1',
            type: 'code',
            code: `import { shout } from "${SHRINKING}/extra";\nreturn shout("hi");`,
            packages: [{ specifier: `${SHRINKING}/extra`, resolvedPackVersion: '1.0.0' }],
          },
        ],
      },
    });
    expect(saved.ok).toBe(true);
    expect(await call('packs.uninstall', { name: SHRINKING })).toMatchObject({ ok: true });
    await screen('Workflows');
    await page.getByLabel('Saved', { exact: true }).selectOption('fix-flow');
    await page.getByRole('button', { name: 'Open', exact: true }).click();
    const validation = page.getByRole('region', { name: 'Validation of n1' });
    const issue = validation.getByRole('listitem').filter({ hasText: 'unknown-specifier' });
    await issue.waitFor({ timeout: 30_000 });
    expect(await issue.textContent()).toContain(
      `No installed pack provides "${SHRINKING}/extra". Install the pack that provides it (${SHRINKING}@1.0.0, the version this node was saved with).`,
    );
    expect(await issue.textContent()).not.toContain('sandbox-packs');
    const button = issue.getByRole('button', { name: `Install ${SHRINKING}@1.0.0`, exact: true });
    await snap(page, '29-09-install-saved-version');
    await button.click();
    await validation.getByText('No problems found.').waitFor({ timeout: 90_000 });
    // 1.0.0, not the registry's latest 2.0.0 (which no longer has the module).
    expect(await call('packs.list', {})).toMatchObject({
      ok: true,
      value: { packs: expect.arrayContaining([expect.objectContaining({ name: SHRINKING, version: '1.0.0' })]) },
    });
    await page.getByLabel('Code of n1', { exact: true }).press('Control+Enter');
    await page.getByRole('group', { name: 'Last run of n1' }).getByLabel('Result value').filter({ hasText: /HI/ }).waitFor({ timeout: 60_000 });
    await snap(page, '29-09-installed-and-ran');
    expect(problems).toEqual([]);
  });
});
