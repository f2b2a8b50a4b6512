// Issue 18 in Chromium, against the real web host, services, npm and a real local Verdaccio:
// trust state that is always true (one state per pack, the same in every window, a failed setup
// shown as failed with npm's lines, a stale dialog that will not confirm), the consent dialog
// that leads with what the pack can do and flags remote-code scripts, a 404 that names the
// registry, and updates read from the configured registry (count on the tab, target version,
// removed modules next to the nodes they break, "install a newer tarball" for tarball packs).
// Each new state is saved under e2e/artifacts/.

import { expect, test } from '@playwright/test';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { tempDir, type TempDir } from '../electron/testing/test-support.ts';
import { startRegistry, type TestRegistry } from '../electron/testing/verdaccio.ts';
import { startAppSession, type AppSession } from './app-session.ts';
import { BUILD, REPO_ROOT, snap } from './support.ts';

const FIXTURES = path.join(REPO_ROOT, 'fixtures/registry-packs');
const LOUD = '@sp-fixture/register-failing-loud';
const RISKY = '@sp-fixture/risky-script';
const EVOLVING = '@sp-fixture/evolving';
const SHRINKING = '@sp-fixture/shrinking';
const MARKER = '@sp-fixture/sandbox-marker';

let registry: TestRegistry;
let data: TempDir;
let packed: TempDir;
let app: AppSession;
let page: Page;
let other: Page;
let problems: string[];

// Tests of a suite share its host, registry and page, so they run in order; a failure skips the rest.
test.describe.configure({ mode: 'serial' });

test.beforeAll(async ({ browser }) => {
  test.setTimeout(300_000);
  registry = await startRegistry({ uplink: false });
  for (const dir of ['register-failing-loud-1.0.0', 'risky-script-1.0.0', 'evolving-1.0.0', 'evolving-2.0.0', 'shrinking-1.0.0', 'shrinking-2.0.0'])
    await registry.publish(path.join(FIXTURES, dir));
  packed = await tempDir('e2e-tarball');
  const npmCli = path.join(REPO_ROOT, 'node_modules/npm/bin/npm-cli.js');
  const pack = spawnSync(
    process.execPath,
    [npmCli, 'pack', path.join(FIXTURES, 'sandbox-marker-1.0.0'), '--pack-destination', packed.path, '--ignore-scripts'],
    { cwd: packed.path, encoding: 'utf8' },
  );
  if (pack.status !== 0) throw new Error(`npm pack failed: ${pack.stderr}`);
  data = await tempDir('e2e-trust');
  app = await startAppSession(browser, data.path, BUILD);
  await app.useRegistry(registry.url);
  ({ page, problems } = await app.openApp({ width: 1280, height: 900 }));
  // A second window on the same host: it must show the same state without a reload.
  ({ page: other } = await app.openApp({ width: 1280, height: 900 }));
});

test.afterAll(async () => {
  await app?.close();
  await data?.remove();
  await packed?.remove();
  await registry?.stop();
});

const call = (method: string, payload: unknown) => app.services.dispatcher.handle(method, payload, { face: 'test' });
const card = (p: Page, name: string, version: string) => p.getByRole('article', { name: `${name} ${version}`, exact: true });

async function install(spec: string): Promise<void> {
  await page.getByLabel('Package spec').fill(spec);
  await page.getByRole('button', { name: 'Install', exact: true }).click();
}

test.describe('trust state, consent and updates in Chromium (issue 18)', () => {
  test('a 404 on install says the package does not exist on the configured registry, naming it', async () => {
    await install('@sp-fixture/no-such-pack');
    const alert = page.getByRole('alert').filter({ hasText: 'The install failed:' });
    await alert.waitFor({ timeout: 90_000 });
    expect(await alert.textContent()).toBe(
      `The install failed: The package @sp-fixture/no-such-pack does not exist on the registry ${registry.url} (npm answered 404 Not Found while installing @sp-fixture/no-such-pack). Check the name, or the registry in Agent & settings. not-found`,
    );
    await snap(page, '18-01-install-404');
  });

  test('the consent dialog leads with what the pack can do, names the register entry, shows its claims and flags curl | sh', async () => {
    await install(RISKY);
    await page.getByLabel('Install result').getByText(`${RISKY}@1.0.0 needs trust`).waitFor({ timeout: 90_000 });
    await page
      .getByLabel('Install result')
      .getByRole('button', { name: `Trust ${RISKY} and run setup…`, exact: true })
      .click();
    const dialog = page.getByRole('dialog', { name: `Trust ${RISKY}?` });
    const can = dialog.getByRole('list', { name: 'If you trust it, it can' });
    await can.waitFor();
    // The consequence comes first in the dialog's body, in plain words.
    expect(await dialog.locator('.dialog-body > *').first().textContent()).toBe('If you trust it, it can:');
    expect(await can.getByRole('listitem').allTextContents()).toEqual([
      'Run its code on your computer with your permissions, outside the sandbox: read and change your files, use the network and start programs.',
      'Run the install script below now, as its setup.',
      'Run its host code entry register.js each time the app loads packs.',
    ]);
    const facts = await dialog.getByRole('definition').allTextContents();
    expect(facts[0]).toBe(`${RISKY}@1.0.0`);
    expect(facts[1]).toMatch(/^\d{4}-\d\d-\d\d \(registry\)$/);
    expect(facts[2]).toBe('Risky Fixtures <risky@example.invalid>');
    expect(facts[3]).toContain('https://example.invalid/risky-script.git');
    const risk = dialog.locator('[data-risk="pipe-to-shell"]');
    expect(await risk.textContent()).toBe(
      'Downloads and runs remote code: Downloads a script and runs it at once: what runs is whatever that server sends, not what you see here.',
    );
    expect(await dialog.getByRole('button', { name: 'Trust and run setup', exact: true }).isEnabled()).toBe(true);
    expect(await dialog.getByText(/rebuild/i).count()).toBe(0);
    await snap(page, '18-02-consent-dialog');
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await dialog.waitFor({ state: 'detached' });
  });

  test("a failed setup shows as failed with npm's lines, the same in the install result, the card and another window", async () => {
    await install(LOUD);
    const result = page.getByLabel('Install result');
    await result.getByText(`${LOUD}@1.0.0 needs trust`).waitFor({ timeout: 90_000 });
    await result.getByRole('button', { name: `Trust ${LOUD} and run setup…`, exact: true }).click();
    await page
      .getByRole('dialog', { name: `Trust ${LOUD}?` })
      .getByRole('button', { name: 'Trust and run setup', exact: true })
      .click();
    await result.getByText(`${LOUD}@1.0.0: setup failed`).waitFor({ timeout: 90_000 });
    const mine = card(page, LOUD, '1.0.0');
    await mine.getByText('setup failed · inactive', { exact: true }).waitFor();
    expect(await mine.getByText(/^trusted/).count()).toBe(0);
    const lines = await mine
      .getByRole('alert', { name: `Setup of ${LOUD} failed` })
      .locator('pre')
      .textContent();
    expect(lines?.split('\n')[0]).toBe(`The install scripts of ${LOUD}@1.0.0 failed. npm said:`);
    expect(lines).toContain('setup step 1 of 5');
    expect(lines).toContain('fatal: could not find the Python 3 interpreter the build needs (set PYTHON)');
    expect(await mine.getByRole('button', { name: `Run setup of ${LOUD} again…`, exact: true }).count()).toBe(1);
    await snap(page, '18-03-setup-failed');
    // The other window was not reloaded: the end of the operation refreshed it.
    await card(other, LOUD, '1.0.0').getByText('setup failed · inactive', { exact: true }).waitFor({ timeout: 30_000 });
  });

  test('a dialog whose pack changed while open says so and will not confirm the old version', async () => {
    await install(`${EVOLVING}@2.0.0`);
    await page.getByLabel('Install result').getByText(`${EVOLVING}@2.0.0 needs trust`).waitFor({ timeout: 90_000 });
    await card(page, EVOLVING, '2.0.0')
      .getByRole('button', { name: `Trust ${EVOLVING} and run setup…`, exact: true })
      .click();
    const dialog = page.getByRole('dialog', { name: `Trust ${EVOLVING}?` });
    // A hybrid pack's modules join the agent's default allowlist once trusted: the dialog says so.
    await dialog.getByText("Be offered to the agent: the agent's default package allowlist is the modules of trusted packs").waitFor();
    const updated = await call('packs.update', { name: EVOLVING, to: '1.0.0' });
    expect(updated).toMatchObject({ ok: true, value: { version: '1.0.0' } });
    const alert = dialog.getByRole('alert');
    await alert.waitFor({ timeout: 30_000 });
    expect(await alert.textContent()).toBe(
      `This pack changed while the dialog was open: ${EVOLVING}@2.0.0 is no longer what is installed (1.0.0 is). Nothing was run. Review the new version before you decide.`,
    );
    expect(await dialog.getByRole('button', { name: 'Trust and run setup', exact: true }).isDisabled()).toBe(true);
    await snap(page, '18-04-stale-dialog');
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    expect(await call('packs.list', {})).toMatchObject({ ok: true });
  });

  test('updates come from the registry: a count on the tab, Update only where there is one, the target and what it breaks', async () => {
    await install(`${SHRINKING}@1.0.0`);
    await page.getByLabel('Install result').getByText(`Installed ${SHRINKING}@1.0.0`).waitFor({ timeout: 90_000 });
    const saved = await call('workflows.save', {
      name: 'shrink-flow',
      workflow: {
        nodes: [
          { id: 'n1', type: 'code', code: `import { shout } from "${SHRINKING}/extra";\nreturn shout("hi");`, packages: [{ specifier: `${SHRINKING}/extra` }] },
        ],
      },
    });
    expect(saved.ok).toBe(true);
    // evolving is back at 1.0.0 and shrinking at 1.0.0: two newer versions on the registry.
    await page.getByRole('tab', { name: 'Updates (2)' }).waitFor({ timeout: 30_000 });
    expect(
      await card(page, LOUD, '1.0.0')
        .getByRole('button', { name: /^Update / })
        .count(),
    ).toBe(0);
    const shrinking = card(page, SHRINKING, '1.0.0');
    await shrinking.getByText('2.0.0 available', { exact: true }).waitFor();
    await shrinking.getByRole('button', { name: `Update ${SHRINKING} to 2.0.0…`, exact: true }).click();
    const dialog = page.getByRole('dialog', { name: `Update ${SHRINKING} to 2.0.0?` });
    expect(await dialog.getByText(/^Version: 1\.0\.0 → 2\.0\.0 \(published \d{4}-\d\d-\d\d\)$/).count()).toBe(1);
    const removed = dialog.getByRole('group', { name: 'Removed in the new version' });
    await removed.getByRole('list', { name: 'Nodes this update breaks' }).waitFor();
    expect(await removed.textContent()).toBe(
      `2.0.0 removes: module ${SHRINKING}/extra Workflow shrink-flow, node n1 breaks: uses ${SHRINKING}/extra, which 2.0.0 removes`,
    );
    await snap(page, '18-05-update-breakage');
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await page.getByRole('tab', { name: 'Updates (2)' }).click();
    await page.getByText(`Checked against ${registry.url}: 2 installed packs have a newer version.`).waitFor();
    const rows = page.getByRole('tabpanel').getByRole('listitem');
    expect(await rows.filter({ hasText: LOUD }).getByText('up to date').count()).toBe(1);
    await snap(page, '18-06-updates-tab');
    await page.getByRole('tab', { name: 'Installed' }).click();
  });

  test('a pack from a tarball offers "install a newer tarball" instead of Update', async () => {
    const file = path.join(packed.path, 'sp-fixture-sandbox-marker-1.0.0.tgz');
    await install(file);
    await page.getByLabel('Install result').getByText(`Installed ${MARKER}@1.0.0`).waitFor({ timeout: 90_000 });
    const marker = card(page, MARKER, '1.0.0');
    await marker.getByText('unverified source', { exact: true }).waitFor();
    await marker.getByRole('button', { name: `Install a newer tarball of ${MARKER}…`, exact: true }).waitFor({ timeout: 30_000 });
    expect(await marker.getByRole('button', { name: /^Update / }).count()).toBe(0);
    await marker.getByRole('button', { name: `Install a newer tarball of ${MARKER}…`, exact: true }).click();
    await marker.getByRole('status').getByText(`${MARKER} came from a tarball, so no registry can offer an update`).waitFor();
    expect(await page.evaluate(() => (document.activeElement as HTMLInputElement | null)?.name)).toBe('pack-spec');
    await snap(page, '18-07-tarball-update');
    expect(problems).toEqual([]);
  });
});
