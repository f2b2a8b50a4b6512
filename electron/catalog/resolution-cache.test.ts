import { execFileSync } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import type { SandboxModuleResolution, SandboxModuleResolutionOk } from '../../shared/protocol/catalog.ts';
import type { SandboxModuleDeclaration } from '../../shared/protocol/declaration.ts';
import { openCatalog, type DiscoveryCatalog } from './catalog.ts';
import { declarationKey, MAX_LISTS_PER_SNAPSHOT, ResolutionCache } from './resolution-cache.ts';

const fixtures = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../fixtures/discovery');
const temps: string[] = [];

afterEach(async () => {
  for (const dir of temps.splice(0)) await rm(dir, { recursive: true, force: true });
});

async function goodRoot(): Promise<string> {
  const root = await mkdtemp(path.join(os.tmpdir(), 'resolution-cache-'));
  temps.push(root);
  execFileSync('cp', ['-R', path.join(fixtures, 'good', 'node_modules'), root]);
  return root;
}

async function open(root: string): Promise<DiscoveryCatalog> {
  const result = await openCatalog({ root });
  if (!result.ok) throw new Error(result.message);
  return result.value;
}

function ready(result: SandboxModuleResolution): SandboxModuleResolutionOk {
  if (!result.ok) throw new Error(`${result.code}: ${result.message}`);
  return result;
}

const geoSource = (resolution: SandboxModuleResolutionOk): string => resolution.modules[resolution.entries['@acme/geo']!]!.source;

describe('resolutions remembered per catalog snapshot', () => {
  it('answers the same list on the same snapshot with the answer it gave before, frozen', async () => {
    const catalog = await open(await goodRoot());
    const first = catalog.resolveForExecution([{ specifier: '@acme/geo' }]);
    const again = catalog.resolveForExecution([{ specifier: '@acme/geo' }]);
    expect(again).toBe(first);
    expect(Object.isFrozen(first)).toBe(true);
    const ok = ready(first);
    expect(Object.isFrozen(ok.entries) && Object.isFrozen(ok.modules) && Object.isFrozen(ok.declarations)).toBe(true);
    // Failures are remembered the same way, and a remembered failure is still the snapshot's own answer.
    const unknown = catalog.resolveForExecution([{ specifier: '@acme/nope' }]);
    expect(catalog.resolveForExecution([{ specifier: '@acme/nope' }])).toBe(unknown);
    expect(unknown).toEqual(catalog.snapshot().resolveForExecution([{ specifier: '@acme/nope' }]));
  });

  it('never hands a reloaded catalog a resolution of the snapshot before it: a changed module, a removed pack', async () => {
    const root = await goodRoot();
    const catalog = await open(root);
    const before = ready(catalog.resolveForExecution([{ specifier: '@acme/geo' }]));
    expect(geoSource(before)).not.toContain('changed for the cache test');

    await writeFile(
      path.join(root, 'node_modules/@acme/geo/sandbox/geo.js'),
      "import { toRad } from './util.js';\n// changed for the cache test\nexport function haversine() { return toRad(180); }\n",
    );
    const reloaded = await catalog.reload();
    expect(reloaded.ok && reloaded.value.changed).toContain('@acme/geo');
    const after = ready(catalog.resolveForExecution([{ specifier: '@acme/geo' }]));
    expect(geoSource(after)).toContain('changed for the cache test');
    expect(after.declarations[0]!.digest).not.toBe(before.declarations[0]!.digest);
    expect(after).toEqual(catalog.snapshot().resolveForExecution([{ specifier: '@acme/geo' }]));
    // The run that started before the reload keeps what it was given.
    expect(geoSource(before)).not.toContain('changed for the cache test');

    await rm(path.join(root, 'node_modules/@acme/geo'), { recursive: true });
    expect((await catalog.reload()).ok).toBe(true);
    const gone = catalog.resolveForExecution([{ specifier: '@acme/geo' }]);
    expect(gone.ok ? 'resolved' : gone.code).toBe('unknown-specifier');
  });

  it('answers each different list with its own resolution, whatever was asked before on the snapshot', async () => {
    const catalog = await open(await goodRoot());
    const lists: SandboxModuleDeclaration[][] = [
      [{ specifier: '@acme/geo' }],
      [{ specifier: '@acme/geo/extra' }],
      [{ specifier: '@acme/geo' }, { specifier: '@acme/geo/extra' }],
      [{ specifier: '@acme/geo/extra' }, { specifier: '@acme/geo' }],
      [{ specifier: '@acme/geo', resolvedPackVersion: '1.2.0' }],
      [],
      // Refused by the schema: a key it does not know, a list declaring one specifier twice.
      [{ specifier: '@acme/geo', unexpected: 'x' } as SandboxModuleDeclaration],
      [{ specifier: '@acme/geo' }, { specifier: '@acme/geo' }],
    ];
    // Each list is asked twice in a row and all of them twice over, so every answer is also a remembered one.
    for (let round = 0; round < 2; round++) {
      for (const list of lists) {
        const copy = list.map((d) => ({ ...d }));
        const expected = catalog.snapshot().resolveForExecution(copy);
        expect(catalog.resolveForExecution(copy)).toEqual(expected);
        expect(catalog.resolveForExecution(list.map((d) => ({ ...d })))).toEqual(expected);
      }
    }
    const unexpected = catalog.resolveForExecution([{ specifier: '@acme/geo', unexpected: 'x' } as SandboxModuleDeclaration]);
    expect(unexpected.ok ? 'resolved' : unexpected.code).toBe('declaration-invalid');
    expect(Object.keys(ready(catalog.resolveForExecution([{ specifier: '@acme/geo/extra' }, { specifier: '@acme/geo' }])).entries)).toEqual([
      '@acme/geo/extra',
      '@acme/geo',
    ]);
  });

  it('resolves afresh, by the snapshot’s own parse, any list it cannot spell out exactly', async () => {
    const catalog = await open(await goodRoot());
    const withGetter = [Object.defineProperty({}, 'specifier', { get: () => '@acme/geo', enumerable: true }) as SandboxModuleDeclaration];
    expect(declarationKey(withGetter)).toBeUndefined();
    expect(declarationKey([Object.assign(Object.create({ inherited: 1 }) as object, { specifier: '@acme/geo' })])).toBeUndefined();
    expect(declarationKey([{ specifier: 7 }])).toBeUndefined();
    expect(declarationKey([{ specifier: '@acme/geo', [Symbol('s')]: 'x' }])).toBeUndefined();
    expect(declarationKey([, { specifier: '@acme/geo' }])).toBeUndefined();
    expect(declarationKey({ 0: { specifier: '@acme/geo' }, length: 1 })).toBeUndefined();
    expect(declarationKey(Array.from({ length: 65 }, (_, i) => ({ specifier: `@acme/p${i}` })))).toBeUndefined();
    const first = catalog.resolveForExecution(withGetter);
    expect(first).toEqual(catalog.snapshot().resolveForExecution(withGetter));
    expect(catalog.resolveForExecution(withGetter)).not.toBe(first);
  });

  it('keeps at most MAX_LISTS_PER_SNAPSHOT lists per snapshot, forgetting the oldest first', () => {
    let resolutions = 0;
    const snapshot = {
      resolveForExecution: (declarations: unknown): SandboxModuleResolution => {
        resolutions++;
        return { ok: true, entries: {}, declarations: [], modules: {}, ...{ asked: JSON.stringify(declarations) } };
      },
    };
    const cache = new ResolutionCache();
    const list = (i: number) => [{ specifier: `@acme/p${i}` }];
    for (let i = 0; i <= MAX_LISTS_PER_SNAPSHOT; i++) cache.resolve(snapshot, list(i));
    expect(resolutions).toBe(MAX_LISTS_PER_SNAPSHOT + 1);
    cache.resolve(snapshot, list(MAX_LISTS_PER_SNAPSHOT));
    expect(resolutions).toBe(MAX_LISTS_PER_SNAPSHOT + 1);
    cache.resolve(snapshot, list(0));
    expect(resolutions).toBe(MAX_LISTS_PER_SNAPSHOT + 2);
  });
});
