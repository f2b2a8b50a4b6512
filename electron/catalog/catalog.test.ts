import { execFileSync } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'acorn';
import { afterEach, describe, expect, it } from 'vitest';
import type { SandboxModuleResolutionOk } from '../../shared/protocol/catalog.ts';
import { WASM_BRIDGE_MODULE_ID } from '../../shared/protocol/wasm-bridge.ts';
import { openCatalog, type DiscoveryCatalog } from './catalog.ts';

const fixtures = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../fixtures/discovery');
const temps: string[] = [];

afterEach(async () => {
  for (const dir of temps.splice(0)) await rm(dir, { recursive: true, force: true });
});

async function open(root: string, onlyPacks?: ReadonlySet<string>): Promise<DiscoveryCatalog> {
  const result = await openCatalog({ root, ...(onlyPacks ? { onlyPacks } : {}) });
  if (!result.ok) throw new Error(result.message);
  return result.value;
}

async function copyRoot(name: string): Promise<string> {
  const root = await mkdtemp(path.join(os.tmpdir(), 'h1-catalog-'));
  temps.push(root);
  execFileSync('cp', ['-R', path.join(fixtures, name, 'node_modules'), root]);
  return root;
}

function resolved(catalog: DiscoveryCatalog, specifiers: string[]): SandboxModuleResolutionOk {
  const result = catalog.resolveForExecution(specifiers.map((specifier) => ({ specifier })));
  if (!result.ok) throw new Error(`${result.code}: ${result.message}`);
  return result;
}

describe('resolveForExecution', () => {
  it('returns exactly the declared entries plus their intra-pack closure', async () => {
    const catalog = await open(path.join(fixtures, 'good'));
    const geoOnly = resolved(catalog, ['@acme/geo']);
    expect(Object.keys(geoOnly.entries)).toEqual(['@acme/geo']);
    expect(
      Object.values(geoOnly.modules)
        .map((m) => m.displayName)
        .sort(),
    ).toEqual(['@acme/geo', '@acme/geo internal sandbox/util.js']);

    const extra = resolved(catalog, ['@acme/geo/extra']);
    expect(Object.keys(extra.entries)).toEqual(['@acme/geo/extra']);
    expect(
      Object.values(extra.modules)
        .map((m) => m.displayName)
        .sort(),
    ).toEqual(['@acme/geo', '@acme/geo internal sandbox/util.js', '@acme/geo/extra', '@acme/geo/simplify-wasm', WASM_BRIDGE_MODULE_ID]);
    const summary = catalog.summaries().find((s) => s.specifier === '@acme/geo/extra');
    expect(extra.declarations).toEqual([
      { specifier: '@acme/geo/extra', moduleId: summary?.moduleId, packName: '@acme/geo', packVersion: '1.2.0', digest: summary?.digest },
    ]);
    // Every import of every module resolves inside the resolution, and every source parses as a module.
    for (const module of Object.values(extra.modules)) {
      for (const target of Object.values(module.imports)) expect(extra.modules[target]).toBeDefined();
      expect(() => parse(module.source, { ecmaVersion: 'latest', sourceType: 'module' })).not.toThrow();
    }
  });

  it.each([
    [[{ specifier: 'nope' }], 'unknown-specifier', 'No installed pack provides "nope".', 'nope', undefined],
    [[{ specifier: 'sandbox:wasm-bridge' }], 'unknown-specifier', 'No installed pack provides "sandbox:wasm-bridge".', 'sandbox:wasm-bridge', undefined],
    [[{ specifier: 'node:fs' }], 'unknown-specifier', 'No installed pack provides "node:fs".', 'node:fs', undefined],
    [
      [{ specifier: '@acme/geo/other' }],
      'unknown-specifier',
      '@acme/geo does not provide "@acme/geo/other"; it provides @acme/geo, @acme/geo/extra, @acme/geo/simplify-wasm.',
      '@acme/geo/other',
      '@acme/geo',
    ],
    [
      [{ specifier: '@acme/geo/sandbox/util.js' }],
      'internal-specifier',
      '"@acme/geo/sandbox/util.js" is an internal helper of @acme/geo; declare one of its public modules instead.',
      '@acme/geo/sandbox/util.js',
      '@acme/geo',
    ],
    [
      [{ specifier: '@acme/geo/./sandbox/util.js' }],
      'internal-specifier',
      '"@acme/geo/./sandbox/util.js" is an internal helper of @acme/geo; declare one of its public modules instead.',
      '@acme/geo/./sandbox/util.js',
      '@acme/geo',
    ],
    [[{ specifier: '@acme/geo' }, { specifier: '@acme/geo' }], 'declaration-invalid', 'packages: "@acme/geo" is declared twice.', '@acme/geo', undefined],
    [
      [{ specifier: '@acme/geo', contentDigest: 'xyz' }],
      'declaration-invalid',
      'packages: 0.contentDigest: a digest is 64 lower-case hex characters (sha256)',
      '',
      undefined,
    ],
    [[{ specifier: '@acme/geo', extra: 1 }], 'declaration-invalid', 'packages: 0: Unrecognized key: "extra"', '', undefined],
  ])('refuses %j with %s', async (declarations, code, message, specifier, packName) => {
    const catalog = await open(path.join(fixtures, 'good'));
    expect(catalog.resolveForExecution(declarations as never)).toEqual({ ok: false, code, message, specifier, ...(packName ? { packName } : {}) });
  });

  it('names skipped modules and rejected packs with module-skipped', async () => {
    const catalog = await open(path.join(fixtures, 'rules'));
    expect(catalog.resolveForExecution([{ specifier: 'dynamic-import' }])).toEqual({
      ok: false,
      code: 'module-skipped',
      message: 'dynamic-import was skipped at discovery: index.js:3:10: import() is not allowed; use a static import of a file of this pack.',
      specifier: 'dynamic-import',
      packName: 'dynamic-import',
    });
    expect(catalog.resolveForExecution([{ specifier: 'internal-cycle' }])).toMatchObject({ ok: false, code: 'module-skipped', packName: 'internal-cycle' });
    // A ready module still resolves in the same pack as skipped ones.
    expect(resolved(catalog, ['wasm-rules/uses-ok']).entries['wasm-rules/uses-ok']).toMatch(/^m_/);
  });
});

describe('authorizeDelivery', () => {
  it('delivers ready modules with digest and dependencies, not-found for unknown ids', async () => {
    const catalog = await open(path.join(fixtures, 'good'));
    const extra = resolved(catalog, ['@acme/geo/extra']);
    const id = extra.entries['@acme/geo/extra'] as string;
    const module = extra.modules[id];
    const delivered = await catalog.authorizeDelivery(id, { kind: 'browser', origin: 'http://127.0.0.1' });
    expect(delivered).toEqual({
      ok: true,
      moduleId: id,
      mediaType: 'text/javascript',
      body: module?.source,
      digest: module?.digest,
      dependencies: [...new Set(Object.values(module?.imports ?? {}))].sort(),
      graph: expect.objectContaining({ moduleId: id, imports: module?.imports }),
    });
    expect((await catalog.authorizeDelivery(WASM_BRIDGE_MODULE_ID, { kind: 'browser' })).ok).toBe(true);
    expect(await catalog.authorizeDelivery('m_000000000000000000000000', { kind: 'main' })).toEqual({
      ok: false,
      code: 'not-found',
      message: 'No module with id "m_000000000000000000000000" is in the catalog.',
    });
    expect((await catalog.authorizeDelivery('../../etc/passwd', { kind: 'main' })).ok).toBe(false);
  });

  it('serves private packs to main only', async () => {
    const catalog = await open(path.join(fixtures, 'rules'));
    const id = catalog.summaries().find((s) => s.specifier === 'private-pack')?.moduleId as string;
    expect(await catalog.authorizeDelivery(id, { kind: 'browser' })).toEqual({
      ok: false,
      code: 'forbidden',
      message: 'private-pack belongs to a private pack and is not delivered to the browser.',
    });
    expect((await catalog.authorizeDelivery(id, { kind: 'main' })).ok).toBe(true);
  });
});

describe('summaries, diagnostics and skills', () => {
  it('never carries absolute paths or skill bodies', async () => {
    const catalog = await open(path.join(fixtures, 'good'));
    const text = JSON.stringify([catalog.summaries(), catalog.diagnostics()]);
    expect(text).not.toContain(fixtures);
    expect(text).not.toContain('great-circle distance in km');
    const skill = catalog.skillDoc('@acme/geo');
    expect(skill.ok && skill.value.body).toContain('great-circle distance in km');
    expect(catalog.skillDoc('nope')).toEqual({ ok: false, code: 'not-found', message: 'No pack named "nope" is installed.' });
  });

  it('lists packs with their statuses', async () => {
    const catalog = await open(path.join(fixtures, 'rules'));
    const byName = Object.fromEntries(catalog.diagnostics().map((p) => [p.name, p.status]));
    expect(byName['duplicate-names']).toBe('rejected');
    expect(byName['wasm-rules']).toBe('ok');
    expect(catalog.skillDoc('dynamic-import')).toEqual({ ok: false, code: 'skill-missing', message: 'dynamic-import has no usable SKILL.md.' });
  });
});

describe('reload', () => {
  it('swaps atomically; a resolution handed out earlier keeps working', async () => {
    const root = await copyRoot('good');
    const catalog = await open(root);
    const before = resolved(catalog, ['@acme/geo']);
    const oldId = before.entries['@acme/geo'] as string;
    const oldSource = before.modules[oldId]?.source;

    await writeFile(path.join(root, 'node_modules/@acme/geo/sandbox/util.js'), 'export const EARTH_KM = 1;\nexport const toRad = (d) => d;\n');
    const report = await catalog.reload();
    expect(report.ok && { added: report.value.added, removed: report.value.removed, changed: report.value.changed }).toEqual({
      added: [],
      removed: [],
      changed: ['@acme/geo', '@acme/geo/extra'],
    });

    const after = resolved(catalog, ['@acme/geo']);
    expect(after.declarations[0]?.digest).not.toBe(before.declarations[0]?.digest);
    // The old resolution is untouched: same objects, same sources.
    expect(before.modules[oldId]?.source).toBe(oldSource);
    expect(Object.values(before.modules).some((m) => m.source.includes('EARTH_KM = 1;'))).toBe(false);
    expect(Object.values(after.modules).some((m) => m.source.includes('EARTH_KM = 1;'))).toBe(true);
  });

  it('reports removed packs, and keeps the old snapshot when the root becomes unreadable', async () => {
    const root = await copyRoot('good');
    const catalog = await open(root);
    await rm(path.join(root, 'node_modules/@acme/geo'), { recursive: true });
    const report = await catalog.reload();
    expect(report.ok && report.value.removed).toEqual(['@acme/geo', '@acme/geo/extra', '@acme/geo/simplify-wasm']);
    expect(catalog.summaries()).toEqual([]);

    const gone = await copyRoot('good');
    const second = await open(gone);
    await rm(gone, { recursive: true });
    expect((await second.reload()).ok).toBe(false);
    expect(second.summaries().length).toBe(3);
  });

  it('reads the ledger names at every reload when given a function', async () => {
    const root = await copyRoot('rules');
    let names = new Set(['bad-skill']);
    const result = await openCatalog({ root, onlyPacks: () => names });
    if (!result.ok) throw new Error(result.message);
    expect(result.value.diagnostics().map((p) => p.name)).toEqual(['bad-skill']);
    names = new Set(['bad-skill', 'wasm-rules']);
    const report = await result.value.reload();
    expect(report.ok && report.value.packs).toBe(2);
    expect(result.value.diagnostics().map((p) => p.name)).toEqual(['bad-skill', 'wasm-rules']);
  });
});

describe('holdForSetup', () => {
  it('answers busy for a held pack the snapshot does not know, until released; other answers stay as they are', async () => {
    const catalog = await open(path.join(fixtures, 'good'));
    const sentence = (pack: string) => `${pack} is still being set up.`;
    const release = catalog.holdForSetup(['@acme/seeding', '@acme/geo'], sentence);
    expect(catalog.resolveForExecution([{ specifier: '@acme/geo' }, { specifier: '@acme/seeding/part' }])).toEqual({
      ok: false,
      code: 'busy',
      message: '@acme/seeding is still being set up.',
      specifier: '@acme/seeding/part',
      packName: '@acme/seeding',
    });
    // A held pack that is installed resolves as usual; a pack nobody installs is still unknown.
    expect(resolved(catalog, ['@acme/geo']).declarations.map((d) => d.packName)).toEqual(['@acme/geo']);
    expect(catalog.resolveForExecution([{ specifier: '@acme/elsewhere' }])).toMatchObject({ ok: false, code: 'unknown-specifier' });
    release();
    release();
    expect(catalog.resolveForExecution([{ specifier: '@acme/seeding' }])).toMatchObject({ ok: false, code: 'unknown-specifier' });
  });
});
