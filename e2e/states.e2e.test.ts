// Issue 29 items 7, 8 and 14 in Chromium, against the real web host, services, npm, first run and
// a real local Verdaccio: one pack's states read the same on every screen and in the CLI (Packages,
// Diagnostics, Agent & settings, its SKILL.md, `sandbox-packs list`); trust for agents is the
// user's decision for any pack (shipped packs trusted by default, revocable and grantable in
// Packages, the agent's default allowlist following it); a trusted, active register pack is not
// "rejected"; Available says which version is installed; and Updates says it could not check when
// the registry is unreachable. Each new state is saved under e2e/artifacts/.

import { expect, test } from '@playwright/test';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { runFirstRun } from '../electron/first-run/first-run.ts';
import { shippedPrecompiled, shippedTarball } from '../electron/first-run/shipped-tarballs.ts';
import { SHIPPED_PACKS } from '../electron/platform/assets.ts';
import { tempDir, type TempDir } from '../electron/testing/test-support.ts';
import { startRegistry, type TestRegistry } from '../electron/testing/verdaccio.ts';
import { SKILL_UNTRUSTED_BANNER } from '../renderer/features/consent/consent-text.ts';
import { startAppSession, type AppSession } from './app-session.ts';
import { BUILD, REPO_ROOT, snap } from './support.ts';

const FIXTURES = path.join(REPO_ROOT, 'fixtures/registry-packs');
const YAML = SHIPPED_PACKS.find((p) => p.dir === 'sandbox-yaml')!;
const GEO = SHIPPED_PACKS.find((p) => p.dir === 'geo')!;
const REGISTER = '@sp-fixture/register-pack';
const SHRINKING = '@sp-fixture/shrinking';
const UNREACHABLE = 'http://127.0.0.1:9/';

let registry: TestRegistry;
let data: TempDir;
let app: AppSession;
let page: Page;
let problems: string[];

test.describe.configure({ mode: 'serial' });

test.beforeAll(async ({ browser }) => {
  test.setTimeout(300_000);
  registry = await startRegistry({ uplink: false });
  for (const dir of ['script-dep-1.0.0', 'register-pack-1.0.0', 'shrinking-1.0.0']) await registry.publish(path.join(FIXTURES, dir));
  data = await tempDir('e2e-states');
  const seeded = await runFirstRun({ dataDir: data.path, tarball: shippedTarball, precompiled: shippedPrecompiled, registry: UNREACHABLE, packs: [YAML, GEO] });
  if (!seeded.ok) throw new Error(`${seeded.code}: ${seeded.message}`);
  app = await startAppSession(browser, data.path, BUILD);
  await app.useRegistry(registry.url);
  for (const spec of [REGISTER, `${SHRINKING}@1.0.0`]) {
    const installed = await call('packs.install', { spec });
    if (!installed.ok) throw new Error(installed.message);
  }
  const trusted = await call('packs.trust', { name: REGISTER });
  if (!trusted.ok) throw new Error(trusted.message);
  ({ page, problems } = await app.openApp({ width: 1280, height: 900 }));
});

test.afterAll(async () => {
  await app?.close();
  await data?.remove();
  await registry?.stop();
});

function call(method: string, payload: unknown) {
  return app.services.dispatcher.handle(method, payload, { face: 'test' });
}

async function screen(name: string): Promise<void> {
  await page.getByRole('navigation', { name: 'Screens' }).getByRole('button', { name }).click();
}

const card = (name: string) => page.locator(`article[data-pack="${name}"]`);
const chips = async (name: string) => (await card(name).locator('.chips .chip').allTextContents()).map((t) => t.trim());
const allowBox = (specifier: string) => page.getByLabel(specifier, { exact: true });
const allowText = (specifier: string) => page.locator('li.pick', { has: allowBox(specifier) }).locator('span.muted');

/** `sandbox-packs list --json` over the same data directory: the CLI's words for each pack. */
function cliStates(): Map<string, { setup: string; use: string; source: string }> {
  const run = spawnSync(process.execPath, [path.join(REPO_ROOT, 'scripts/sandbox-packs.mjs'), 'list', '--root', data.path, '--json'], {
    cwd: REPO_ROOT,
    encoding: 'utf8',
    timeout: 60_000,
  });
  if (run.status !== 0) throw new Error(run.stderr);
  const listed = JSON.parse(run.stdout) as { packs: { name: string; states: { setup: string; use: string; source: string } }[] };
  return new Map(listed.packs.map((p) => [p.name, p.states]));
}

test.describe('one state, the same words on every screen and in the CLI (issue 29)', () => {
  test("a shipped pack's states read the same in Packages, Diagnostics, Agent & settings, its SKILL.md and `list`", async () => {
    await screen('Packages');
    await card(YAML.name).waitFor();
    const words = { setup: 'sandbox-only · active', use: 'offered to agents', source: 'shipped with the app' };
    expect(await chips(YAML.name)).toEqual([words.setup, words.source, words.use]);
    expect(await card(YAML.name).locator('.use-reason').textContent()).toBe('Shipped with the app, so trusted for agents until you revoke it.');
    await snap(page, '29-14-packages-shipped');

    await card(YAML.name)
      .getByRole('button', { name: `Details of ${YAML.name}` })
      .click();
    await page.getByRole('article', { name: `Documentation of ${YAML.name}` }).waitFor();
    expect(await page.getByText(SKILL_UNTRUSTED_BANNER).count()).toBe(0);

    await screen('Diagnostics');
    const row = page.getByRole('row', { name: `Installer row of ${YAML.name}` });
    // The installer table fills in after the screen opens: wait for the row before reading its cells.
    await row.waitFor();
    expect((await row.locator('td').allTextContents()).slice(3, 6)).toEqual([words.setup, words.use, words.source]);
    expect(await page.getByText('unverified source', { exact: true }).count()).toBe(0);
    await snap(page, '29-14-diagnostics');

    await screen('Agent & settings');
    await allowBox(YAML.name).waitFor();
    expect(await allowBox(YAML.name).isChecked()).toBe(true);
    expect(await allowText(YAML.name).textContent()).toBe(`${words.use}; ${words.setup}`);
    expect(await page.getByLabel('Prompt package lines').textContent()).toContain(YAML.name);
    await snap(page, '29-07-agent-default');

    expect(cliStates().get(YAML.name)).toEqual(words);
  });

  test('a trusted, active register pack is not "rejected" anywhere, and reads the same in the CLI', async () => {
    await screen('Diagnostics');
    const row = page.getByRole('row', { name: `Installer row of ${REGISTER}` });
    const words = { setup: 'trusted · active', use: 'no modules for agents', source: 'registry' };
    await row.waitFor();
    expect((await row.locator('td').allTextContents()).slice(3, 6)).toEqual([words.setup, words.use, words.source]);
    expect(await page.getByRole('article', { name: `Diagnostics of ${REGISTER}` }).count()).toBe(0);
    expect(await page.getByText('declares no nodetool.sandboxModules').count()).toBe(0);
    expect(cliStates().get(REGISTER)).toEqual(words);
  });

  test("revoking a pack's trust for agents in Packages takes it off the agent's default; trusting it gives it back", async () => {
    await screen('Packages');
    await card(YAML.name)
      .getByRole('button', { name: `Revoke trust in ${YAML.name} for agents` })
      .click();
    await card(YAML.name).getByText('not offered to agents', { exact: true }).waitFor();
    expect(await card(YAML.name).locator('.use-reason').textContent()).toBe('You revoked its trust for agents.');
    // Its documentation now carries the untrusted banner (the details panel is still open).
    await page.getByText(SKILL_UNTRUSTED_BANNER).waitFor();
    await snap(page, '29-07-revoked');
    // A registry sandbox-only pack is not trusted by default; the user may trust it.
    expect(await chips(SHRINKING)).toContain('not offered to agents');
    await card(SHRINKING)
      .getByRole('button', { name: `Trust ${SHRINKING} for agents` })
      .click();
    await card(SHRINKING).getByText('offered to agents', { exact: true }).waitFor();

    await screen('Agent & settings');
    await allowBox(YAML.name).waitFor();
    expect(await allowBox(YAML.name).isChecked()).toBe(false);
    expect(await allowText(YAML.name).textContent()).toBe('not offered to agents; sandbox-only · active');
    expect(await allowBox(SHRINKING).isChecked()).toBe(true);
    expect(await page.getByLabel('Prompt package lines').textContent()).not.toContain(YAML.name);
    expect(cliStates().get(YAML.name)?.use).toBe('not offered to agents');
    await snap(page, '29-07-agent-after-revoke');

    await screen('Packages');
    await card(YAML.name)
      .getByRole('button', { name: `Trust ${YAML.name} for agents` })
      .click();
    await card(YAML.name).getByText('offered to agents', { exact: true }).waitFor();
    expect(await card(YAML.name).locator('.use-reason').textContent()).toBe('You trusted it for agents.');
  });

  test('Available says which version is installed, and that Updates offers nothing for a tarball install', async () => {
    await screen('Packages');
    await page.getByRole('tab', { name: 'Available' }).click();
    await page.getByLabel('Search for packs').fill('geo');
    const note = page.getByRole('note', { name: `Installed version of ${GEO.name}` });
    await note.waitFor({ timeout: 60_000 });
    expect(await note.textContent()).toBe(
      'Installed: 0.1.0 (shipped with the app). The listing names 1.0.0, but a pack installed from a tarball is not updated from the registry: Updates offers nothing for it.',
    );
    await snap(page, '29-14-available-installed');
  });

  test('Updates says it could not check when the registry is unreachable, and offers to check again', async () => {
    await screen('Agent & settings');
    await page.getByLabel('Registry URL packs are installed from').fill(UNREACHABLE);
    await page.getByRole('button', { name: 'Save registry' }).click();
    await page.getByRole('status').filter({ hasText: 'Registry saved.' }).waitFor();
    try {
      await screen('Packages');
      await page.getByRole('tab', { name: /^Updates/ }).click();
      const alert = page.getByRole('alert').filter({ hasText: 'Could not check' });
      await alert.waitFor({ timeout: 60_000 });
      expect(await alert.textContent()).toBe(
        `Could not check ${UNREACHABLE}: the registry could not be reached, so it is not known whether any installed pack has a newer version. Check that the registry is reachable (Agent & settings names it), then check again.`,
      );
      expect(await page.getByText('no installed pack has a newer version').count()).toBe(0);
      await page.getByRole('button', { name: 'Check again' }).waitFor();
      await snap(page, '29-08-updates-unreachable');
    } finally {
      await call('settings.setRegistry', { registry: registry.url });
    }
    expect(problems).toEqual([]);
  });
});
