// The person's path through the app, end to end: real Chromium, the real web host and services,
// a real local Verdaccio with our packs published, real npm installs. Install a sandbox-only
// pack and read its consent; see its modules and SKILL.md; select it in a Code node, save, run
// code importing it and see the value; install a pack with a lifecycle script and see "needs
// trust" with the script text; trust and rebuild behind the confirmation; uninstall and see the
// affected node listed first. Each main screen is saved under e2e/artifacts/.

import { expect, test } from '@playwright/test';
import { readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { tempDir, type TempDir } from '../electron/testing/test-support.ts';
import { startRegistry, type TestRegistry } from '../electron/testing/verdaccio.ts';
import { startAppSession, type AppSession } from './app-session.ts';
import { BUILD, REPO_ROOT, snap } from './support.ts';

const GEO = '@nodetool-ai/sandbox-geo';
const REGISTER = '@sp-fixture/register-pack';
const EVOLVING = '@sp-fixture/evolving';
const FIXTURES = path.join(REPO_ROOT, 'fixtures/registry-packs');

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
  await registry.publish(path.join(REPO_ROOT, 'packs/geo'));
  for (const pack of ['script-dep-1.0.0', 'register-pack-1.0.0', 'evolving-1.0.0', 'evolving-2.0.0']) await registry.publish(path.join(FIXTURES, pack));
  data = await tempDir('e2e');
  app = await startAppSession(browser, data.path, BUILD);
  await app.useRegistry(registry.url);
  ({ page, problems } = await app.openApp({ width: 1280, height: 800 }));
});

test.afterAll(async () => {
  await app?.close();
  await data?.remove();
  await registry?.stop();
});

async function screen(name: string): Promise<void> {
  await page.getByRole('navigation', { name: 'Screens' }).getByRole('button', { name }).click();
}

async function install(spec: string): Promise<void> {
  await screen('Packages');
  await page.getByLabel('Package spec').fill(spec);
  await page.getByRole('button', { name: 'Install', exact: true }).click();
}

test.describe('the Package Manager and Code node in Chromium', () => {
  test('installs a sandbox-only pack: progress by stage, then active with the consent sentence', async () => {
    // The Packages tabs follow the tabs pattern: arrow keys move between them.
    await page.getByRole('tab', { name: 'Installed' }).focus();
    await page.keyboard.press('ArrowRight');
    expect(await page.getByRole('tab', { name: 'Available' }).getAttribute('aria-selected')).toBe('true');
    await page.keyboard.press('ArrowLeft');
    expect(await page.getByRole('tab', { name: 'Installed' }).getAttribute('aria-selected')).toBe('true');
    await install(GEO);
    const result = page.getByLabel('Install result');
    await result.getByText(`Installed ${GEO}@0.1.0`).waitFor({ timeout: 90_000 });
    expect(await result.textContent()).toContain("This pack runs inside your workflows with the node's capabilities.");
    expect(await result.textContent()).toContain(
      "Importing a module means trusting it with that node's sandbox capabilities: its network access, its workspace, its secrets.",
    );
    expect(await result.textContent()).not.toMatch(/no trust/i);
    const stages = await page.getByRole('list', { name: 'Install stages' }).getByRole('listitem').allTextContents();
    expect(stages.slice(0, 3)).toEqual(['Resolving the package', 'Fetching (install scripts disabled)', 'Reading the installed manifest']);
    expect(await page.getByRole('status').filter({ hasText: 'Done.' }).count()).toBe(1);
    await snap(page, '01-install-sandbox-only');
  });

  test('lists the pack with its modules and renders its SKILL.md under the untrusted banner', async () => {
    const card = page.getByRole('article', { name: `${GEO} 0.1.0`, exact: true });
    await card.getByText(`${GEO}/simplify-wasm`).waitFor();
    // One state chip (not "sandbox-only" plus "not trusted (sandbox-only)"), and the pack's own description.
    expect(await card.getByText('sandbox-only · active', { exact: true }).count()).toBe(1);
    expect(await card.getByText(/not trusted/).count()).toBe(0);
    expect(await card.getByText('registry', { exact: true }).count()).toBe(1);
    const geoDescription = (JSON.parse(await readFile(path.join(REPO_ROOT, 'packs/geo/package.json'), 'utf8')) as { description: string }).description;
    expect(await card.locator('.pack-description').textContent()).toBe(geoDescription);
    expect(await card.getByRole('list', { name: 'Modules' }).getByText('ready').count()).toBe(2);
    await card.getByRole('button', { name: `Details of ${GEO}`, exact: true }).click();
    // The details panel takes focus on its heading (it may open below the list in a narrow window).
    await page.getByRole('heading', { name: GEO, exact: true, level: 2 }).waitFor();
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('details-h');
    const doc = page.getByRole('article', { name: `Documentation of ${GEO}` });
    await doc.getByRole('heading', { name: GEO, exact: true }).waitFor();
    expect(await doc.getByRole('note').textContent()).toContain("written by the pack's author");
    // Sanitized Markdown: rendered code blocks, no raw HTML elements, no remote images.
    expect(await doc.locator('pre code').count()).toBeGreaterThan(0);
    expect(await doc.locator('script, iframe, img, style').count()).toBe(0);
    await snap(page, '02-installed-with-details');
  });

  test('selects the pack in a Code node, saves with stamped declarations, runs code importing it and shows the value', async () => {
    await screen('Workflows');
    await page
      .getByLabel('Code of node-1')
      .fill(`import { haversine } from "${GEO}";\nreturn Math.round(haversine([52.52, 13.405], [48.8566, 2.3522]) / 1000);`);
    // Undeclared import is flagged inline before the module is selected.
    await page.getByText(`The code imports "${GEO}", which is not in this node's packages`).waitFor();
    await page.getByRole('combobox', { name: 'Add a module to node-1' }).fill(GEO);
    await page.getByRole('listbox', { name: 'Modules to add to node-1' }).getByRole('option', { name: GEO, exact: true }).click();
    await page.getByText('No problems found.').waitFor();
    expect(await page.getByRole('region', { name: 'Capability preview' }).textContent()).toContain(
      'nothing outside the sandbox: this node grants no network, workspace or secrets',
    );
    await page.getByLabel('Name', { exact: true }).fill('trips');
    await page.getByRole('button', { name: 'Save workflow' }).click();
    await page.getByRole('status').filter({ hasText: 'Saved "trips".' }).waitFor();
    const saved = await app.services.dispatcher.handle('workflows.load', { name: 'trips' }, { face: 'test' });
    expect(saved.ok).toBe(true);
    const declaration = saved.ok ? (saved.value as { workflow: { nodes: { packages: Record<string, string>[] }[] } }).workflow.nodes[0]!.packages[0]! : {};
    expect(declaration.specifier).toBe(GEO);
    expect(declaration.resolvedPackVersion).toBe('0.1.0');
    expect(declaration.contentDigest).toMatch(/^[0-9a-f]{64}$/);

    await page.getByRole('button', { name: 'Run node-1', exact: true }).click();
    const output = page.getByRole('region', { name: 'Run result' });
    await output.waitFor({ timeout: 60_000 });
    expect(await output.getByLabel('Result value').textContent()).toBe('877');
    expect(await output.textContent()).toContain(`${GEO} → ${GEO}@0.1.0`);
    await snap(page, '03-code-node-run');

    // An import the node does not declare: flagged inline, and the run's receipt shows it denied.
    const code = page.getByLabel('Code of node-1');
    // The editor is CodeMirror: its text is its lines.
    const codeText = () => code.evaluate((el) => [...el.querySelectorAll(':scope > .cm-line')].map((line) => line.textContent ?? '').join('\n'));
    const saved1 = await codeText();
    await code.fill(`import { clamp } from "${GEO}/simplify-wasm";\nreturn await clamp(5, 0, 1);`);
    await page.getByText(`The code imports "${GEO}/simplify-wasm", which is not in this node's packages`).waitFor();
    await page.getByRole('button', { name: 'Run node-1', exact: true }).click();
    await output.getByText('import-denied', { exact: true }).first().waitFor({ timeout: 60_000 });
    const denied = await output.locator('dt:has-text("Denied") + dd').textContent();
    expect(denied).toContain(`import ${GEO}/simplify-wasm from`);
    await snap(page, '03b-code-node-denied');
    await code.fill(saved1);

    // Keyboard: Tab indents inside the editor; Esc then Tab moves on.
    await code.press('End');
    await code.press('Tab');
    expect((await codeText()).endsWith('  ')).toBe(true);
    await code.press('Escape');
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.classList.contains('code-editor'))).toBe(false);
    await code.fill(saved1);
  });

  test('installs a pack with a lifecycle script: needs trust, with the literal scripts', async () => {
    await install(`${REGISTER}@1.0.0`);
    const result = page.getByLabel('Install result');
    await result.getByText(`${REGISTER}@1.0.0 needs trust`).waitFor({ timeout: 90_000 });
    const scripts = await result.getByRole('list', { name: 'Install scripts' }).textContent();
    expect(scripts).toContain('node mark.cjs postinstall');
    expect(scripts).toContain('@sp-fixture/script-dep');
    await snap(page, '04-needs-trust');
  });

  test('trusts and rebuilds only after an explicit confirmation, and restores focus', async () => {
    const opener = page.getByLabel('Install result').getByRole('button', { name: `Trust ${REGISTER} and run setup…`, exact: true });
    await opener.click();
    const dialog = page.getByRole('dialog', { name: `Trust ${REGISTER}?` });
    await dialog.getByText(`Trust ${REGISTER}@1.0.0 and run the 2 install scripts listed above`).waitFor();
    expect(await dialog.getByRole('list', { name: 'Install scripts' }).textContent()).toContain('node mark.cjs postinstall');
    // Focus starts on Cancel and stays inside the dialog.
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Cancel');
    await page.keyboard.press('Tab');
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.closest('dialog') !== null)).toBe(true);
    await snap(page, '05-trust-dialog');
    // Escape cancels without acting, and focus returns to the opener.
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe(`Trust ${REGISTER} and run setup…`);
    const before = await app.services.dispatcher.handle('packs.list', {}, { face: 'test' });
    expect(JSON.stringify(before)).toContain('"status":"needs-trust"');

    await opener.click();
    await dialog.getByRole('button', { name: 'Trust and run setup', exact: true }).click();
    // The install result reads the same packs.list row as the card: trusted, no live Trust button left.
    const result = page.getByLabel('Install result');
    await result.getByText(`${REGISTER}@1.0.0 is trusted and its setup ran`).waitFor({ timeout: 90_000 });
    expect(await result.getByRole('button', { name: /Trust .* and run setup/ }).count()).toBe(0);
    expect(await result.getByText('needs trust').count()).toBe(0);
    const card = page.getByRole('article', { name: `${REGISTER} 1.0.0`, exact: true });
    await card.getByText('trusted · active', { exact: true }).waitFor();
    expect(await card.getByRole('button', { name: `Trust ${REGISTER} and run setup…` }).count()).toBe(0);
  });

  test('shows an integrity mismatch on rebuild as such, with what to do', async () => {
    await registry.replaceTarball(REGISTER, '1.0.0', path.join(FIXTURES, 'register-pack-1.0.0-tampered'));
    const card = page.getByRole('article', { name: `${REGISTER} 1.0.0`, exact: true });
    try {
      // The artifact on disk and npm's cache are gone, so a rebuild must fetch again — and gets other bytes.
      await rm(path.join(data.path, 'node_modules', REGISTER), { recursive: true, force: true });
      await rm(path.join(data.path, '.npm-cache'), { recursive: true, force: true });
      await screen('Packages');
      await card.getByRole('button', { name: `Run setup of ${REGISTER} again…`, exact: true }).click();
      await page
        .getByRole('dialog', { name: `Run the setup of ${REGISTER} again?` })
        .getByRole('button', { name: 'Run setup again', exact: true })
        .click();
      const alert = card.getByRole('alert');
      await alert.waitFor({ timeout: 90_000 });
      const text = await alert.textContent();
      // Recorded with the pack, so every view shows why it is inactive (issue 18).
      expect(text).toContain('Integrity mismatch: nothing was run; the pack is trusted but inactive.');
      expect(text).toContain(`The registry served a different artifact for ${REGISTER}@1.0.0 than the one first installed`);
      expect(text).toContain('Nothing was run. The files are not the exact artifact you were shown');
      // Trusted, but its setup did not complete: never shown as a green "trusted".
      await card.getByText('setup failed · inactive', { exact: true }).waitFor();
      expect(await card.getByText('trusted · active').count()).toBe(0);
      await snap(page, '06a-integrity-mismatch');
    } finally {
      await registry.replaceTarball(REGISTER, '1.0.0', path.join(FIXTURES, 'register-pack-1.0.0'));
    }
  });

  test('updates a pack showing the version change first and the digest change after', async () => {
    await install(`${EVOLVING}@1.0.0`);
    await page.getByLabel('Install result').getByText(`Installed ${EVOLVING}@1.0.0`).waitFor({ timeout: 90_000 });
    const card = page.getByRole('article', { name: `${EVOLVING} 1.0.0`, exact: true });
    // The registry has 2.0.0: the card offers exactly that update, named for the pack and version.
    await card.getByRole('button', { name: `Update ${EVOLVING} to 2.0.0…`, exact: true }).click();
    const dialog = page.getByRole('dialog', { name: `Update ${EVOLVING} to 2.0.0?` });
    await dialog.getByLabel('Target version or tag (empty: latest)').fill('2.0.0');
    expect(await dialog.textContent()).toContain('Version: 1.0.0 → 2.0.0');
    // The saved workflows are looked up after the dialog opens: wait for the answer, not the first paint.
    await dialog.getByText(`No saved workflow declares ${EVOLVING}.`).first().waitFor();
    // 2.0.0 adds host code (issue 29): the dialog says so, and the action says it goes ahead regardless.
    await dialog.getByRole('group', { name: 'What the update changes outside the sandbox' }).waitFor();
    await dialog.getByRole('button', { name: 'Update anyway', exact: true }).click();
    const result = page.getByRole('status').filter({ hasText: `Updated ${EVOLVING}: 1.0.0 → 2.0.0 (needs your trust).` });
    await result.waitFor({ timeout: 90_000 });
    await result.getByText(/→ not loaded$/).waitFor();
    const digests = await result.getByRole('list', { name: 'Digest changes' }).textContent();
    // 2.0.0 became hybrid: inactive until trusted, so its module is not loaded yet.
    expect(digests).toMatch(new RegExp(`^${EVOLVING}: [0-9a-f]{12}… → not loaded$`));
    expect(await result.textContent()).toContain("The new version's modules load once you trust it");
    await snap(page, '06b-update');
  });

  test("offers the agent allowlist: trusted packs by default, with a preview of the prompt's package lines", async () => {
    await screen('Agent & settings');
    await page.getByText('the default allows the modules of packs trusted for agents').waitFor();
    const geoBox = page.getByLabel(GEO, { exact: true });
    expect(await geoBox.isChecked()).toBe(false);
    await page.getByText('No package lines: the agent would be told of no packages.').waitFor();
    await geoBox.check();
    const lines = page.getByLabel('Prompt package lines');
    await lines.waitFor();
    expect(await lines.textContent()).toContain(GEO);
    await snap(page, '08-agent-settings');
    await page.getByRole('button', { name: 'Back to the default (trusted packs only)' }).click();
    await page.getByText('No package lines: the agent would be told of no packages.').waitFor();
  });

  test('lists the Code nodes that declare a pack before uninstalling it, then shows them as unavailable', async () => {
    const card = page.getByRole('article', { name: `${GEO} 0.1.0`, exact: true });
    await screen('Packages');
    await card.getByRole('button', { name: `Uninstall ${GEO}…`, exact: true }).click();
    const dialog = page.getByRole('dialog', { name: `Uninstall ${GEO}?` });
    const affected = dialog.getByRole('list', { name: 'Affected Code nodes' });
    await affected.waitFor();
    expect(await affected.textContent()).toBe(`Workflow trips, node node-1: ${GEO}`);
    await snap(page, '06-uninstall-affected');
    await dialog.getByRole('button', { name: 'Uninstall', exact: true }).click();
    await card.waitFor({ state: 'detached', timeout: 60_000 });
    // Focus lands on a visible confirmation, not on the page body.
    const confirmation = page.getByRole('status').filter({ hasText: `Uninstalled ${GEO}.` });
    await confirmation.waitFor();
    await page.waitForFunction(() => document.activeElement?.textContent?.startsWith('Uninstalled '));
    expect(await page.evaluate(() => document.activeElement?.tagName)).toBe('P');
    await snap(page, '06c-uninstalled-focus');

    await screen('Workflows');
    await page.getByText('unavailable', { exact: true }).waitFor();
    // The node's validation comes from code.validate a moment later.
    await page.getByText(`No installed pack provides "${GEO}"`).waitFor();
    expect(await page.getByText(`No installed pack provides "${GEO}"`).count()).toBe(1);
    await snap(page, '07-workflow-unavailable');
    await page.getByRole('button', { name: `Remove ${GEO}` }).click();
    expect(await page.getByText('unavailable', { exact: true }).count()).toBe(0);
  });

  test('shows diagnostics, and stays usable in a narrow window', async () => {
    await screen('Diagnostics');
    await page.getByRole('heading', { name: 'Catalog' }).waitFor();
    await page.getByRole('heading', { name: 'Start-up reconcile', exact: true }).waitFor();
    await page.getByText('The install tree and the ledger agreed; nothing needed fixing.').waitFor();
    // The npm the installer runs: the one package.json pins, on the runtime serving the host.
    const pinnedNpm = (JSON.parse(await readFile(path.join(REPO_ROOT, 'package.json'), 'utf8')) as { dependencies: { npm: string } }).dependencies.npm;
    await page.getByRole('heading', { name: 'Installer runtime' }).waitFor();
    await page.getByText(`npm ${pinnedNpm} (the app's own) on Node ${process.versions.node}`, { exact: true }).waitFor();
    await snap(page, '09-diagnostics');
    await page.setViewportSize({ width: 420, height: 800 });
    await screen('Packages');
    await page.getByRole('article', { name: `${REGISTER} 1.0.0`, exact: true }).waitFor();
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    expect(overflow).toBeLessThanOrEqual(0);
    await snap(page, '10-narrow-packages');
    await screen('Workflows');
    await page.getByLabel('Code of node-1').waitFor();
    expect(await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth)).toBeLessThanOrEqual(0);
    await snap(page, '11-narrow-workflows');
    expect(problems).toEqual([]);
  });
});
