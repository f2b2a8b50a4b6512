// Issue 14 items 2 and 3 through the real app services: a real Verdaccio serving hostile fixture
// packs, npm 11 installing them, the real compiler and catalog. An install answers with a result
// (never `internal`), a failure after npm ran leaves the ledger and the tree as they were, and the
// app (and `discover`) start again with the bad pack present, which is skipped with its reason.

import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { main } from '../cli/main.ts';
import { createInstaller } from '../install/installer.ts';
import { ledgerPath } from '../install/ledger-store.ts';
import { startRegistry, type TestRegistry } from '../testing/verdaccio.ts';
import { createAppServices, type AppServices } from './app-services.ts';

const FIXTURES = fileURLToPath(new URL('../../fixtures/registry-packs/', import.meta.url));
const DATA_MAIN = '@sp-fixture/lure-data-main';
const WORKFLOW_LURE = '@sp-fixture/lure-workflow';
const TOKEN = 'saved-workflow-input-token-5d41';

vi.setConfig({ testTimeout: 180_000 });

let registry: TestRegistry;
const dirs: string[] = [];
const open: AppServices[] = [];
const bugs: string[] = [];

function newDataDir(): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'sp-handlers-'));
  dirs.push(dir);
  return dir;
}

async function start(dataDir: string): Promise<AppServices> {
  const services = await createAppServices({ dataDir, onBug: (where, error) => bugs.push(`${where}: ${String(error)}`) });
  if (!services.ok) throw new Error(`services did not start: ${services.message}`);
  open.push(services.value);
  return services.value;
}

const call = (services: AppServices, method: string, payload: unknown) => services.dispatcher.handle(method, payload, { face: 'test' });

function ledgerPacks(dataDir: string): string[] {
  const ledger = JSON.parse(readFileSync(ledgerPath(dataDir), 'utf8')) as { packs: Record<string, unknown> };
  return Object.keys(ledger.packs);
}

function moduleRows(services: AppServices, name: string) {
  return services.catalog
    .diagnostics()
    .find((p) => p.name === name)
    ?.modules.map((m) => [m.specifier, m.status, m.code, m.reason]);
}

beforeAll(async () => {
  registry = await startRegistry({ uplink: false });
  await registry.publish(path.join(FIXTURES, 'lure-data-main-1.0.0'));
  await registry.publish(path.join(FIXTURES, 'lure-workflow-1.0.0'));
}, 180_000);

afterAll(async () => {
  await registry?.stop();
});

afterEach(async () => {
  for (const services of open.splice(0)) await services.dispose();
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
  bugs.length = 0;
});

const DATA_MAIN_ROWS = [
  [
    DATA_MAIN,
    'skipped',
    'npm-bundle-failed',
    `${DATA_MAIN}'s entry file node_modules/${DATA_MAIN}/data.json is not JavaScript; the "npm" field must name a package whose entry is a .js, .mjs or .cjs file.`,
  ],
  [`${DATA_MAIN}/plain`, 'ready', undefined, undefined],
];

describe('a pack with a JSON main that names itself (issue 14 item 3)', () => {
  it('installs through packs.install with an answer, is recorded, and its module is skipped with the reason', async () => {
    const dataDir = newDataDir();
    const services = await start(dataDir);
    expect(await call(services, 'settings.setRegistry', { registry: registry.url })).toMatchObject({ ok: true });
    const events: string[] = [];
    const unsubscribe = services.events.subscribe((event) => {
      if (event.type === 'install-progress') events.push(`${event.stage}: ${event.message}`);
      else events.push(event.type);
    });
    const installed = await call(services, 'packs.install', { spec: DATA_MAIN, operationId: 'op-1' });
    unsubscribe();
    expect(installed).toMatchObject({ ok: true, value: { name: DATA_MAIN, version: '1.0.0', installMode: 'sandbox-only', status: 'active' } });
    expect(bugs).toEqual([]);
    // The pack was examined with the catalog before the ledger recorded it, then the catalog reloaded.
    expect(events.filter((e) => !e.startsWith('fetching') && !e.startsWith('resolving'))).toEqual([
      'classifying: reading the installed package.json',
      'compiling: preparing sandbox modules',
      `done: ${DATA_MAIN}@1.0.0 active`,
      'catalog-changed',
    ]);
    expect(ledgerPacks(dataDir)).toEqual([DATA_MAIN]);
    expect(moduleRows(services, DATA_MAIN)).toEqual(DATA_MAIN_ROWS);
  });

  it('leaves the app and `discover` able to start with the pack recorded', async () => {
    const dataDir = newDataDir();
    const installed = await createInstaller({ root: dataDir, registry: registry.url }).install(DATA_MAIN);
    expect(installed).toMatchObject({ ok: true, value: { status: 'active' } });

    const services = await start(dataDir);
    expect(moduleRows(services, DATA_MAIN)).toEqual(DATA_MAIN_ROWS);
    const out: string[] = [];
    expect(await main(['discover', '--root', dataDir, '--json'], { out: (t) => out.push(t), err: () => {} })).toBe(0);
    const json = JSON.parse(out.join('')) as { packs: Array<{ name: string; modules: Array<{ status: string }> }> };
    expect(json.packs.find((p) => p.name === DATA_MAIN)?.modules.map((m) => m.status)).toEqual(['skipped', 'ready']);
  });
});

describe('an install that fails after npm ran is not half-recorded', () => {
  it('puts the tree back and records nothing when preparing the pack throws', async () => {
    const dataDir = newDataDir();
    const installer = createInstaller({
      root: dataDir,
      registry: registry.url,
      compile: async () => {
        throw new SyntaxError('Unexpected token (1:7)');
      },
    });
    const result = await installer.install(DATA_MAIN);
    expect(result).toEqual({
      ok: false,
      code: 'install-failed',
      message: `Installing ${DATA_MAIN} failed after npm ran (SyntaxError: Unexpected token (1:7)); the pack was removed again and nothing was recorded.`,
    });
    expect(ledgerPacks(dataDir)).toEqual([]);
    const rootPackage = JSON.parse(readFileSync(path.join(dataDir, 'package.json'), 'utf8')) as { dependencies?: Record<string, string> };
    expect(rootPackage.dependencies ?? {}).toEqual({});
    expect(existsSync(path.join(dataDir, 'node_modules', ...DATA_MAIN.split('/')))).toBe(false);
    // The root is usable as it was: the same pack installs cleanly afterwards.
    expect(await createInstaller({ root: dataDir, registry: registry.url }).install(DATA_MAIN)).toMatchObject({ ok: true });
  });
});

describe('a pack whose main imports a saved workflow (issue 14 item 2)', () => {
  it('installs active, but its module is skipped and the workflow never reaches the catalog', async () => {
    const dataDir = newDataDir();
    await mkdir(path.join(dataDir, 'workflows'), { recursive: true });
    await writeFile(path.join(dataDir, 'workflows', 'victim.json'), JSON.stringify({ name: 'victim', inputs: { token: TOKEN } }));
    const services = await start(dataDir);
    expect(await call(services, 'settings.setRegistry', { registry: registry.url })).toMatchObject({ ok: true });
    expect(await call(services, 'packs.install', { spec: WORKFLOW_LURE })).toMatchObject({ ok: true, value: { status: 'active', trusted: false } });
    expect(moduleRows(services, WORKFLOW_LURE)).toEqual([
      [
        WORKFLOW_LURE,
        'skipped',
        'npm-bundle-failed',
        `${WORKFLOW_LURE} imports ../../../workflows/victim.json, which is not a file of the pack or of a package it depends on.`,
      ],
    ]);
    const snapshot = services.catalog.snapshot();
    const sources = snapshot.packs.flatMap((p) => [...(p.graph?.modules.values() ?? [])].map((m) => m.source ?? ''));
    expect(sources.join('\n')).not.toContain(TOKEN);
    expect(bugs).toEqual([]);
  });
});
