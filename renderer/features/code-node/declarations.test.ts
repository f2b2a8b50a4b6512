import { describe, expect, it } from 'vitest';
import type { ModuleSummary } from '../../../shared/contract/schemas.ts';
import { declarationState, driftMessage, moduleBySpecifier, repin, setIsolation, stampMissing, toggleDeclaration } from './declarations.ts';

const A = 'a'.repeat(64);
const B = 'b'.repeat(64);
const mod = (specifier: string, extra: Partial<ModuleSummary> = {}): ModuleSummary => ({
  specifier,
  packName: '@x/geo',
  packVersion: '2.0.0',
  kind: 'js',
  status: 'ready',
  digest: B,
  summary: `${specifier}: geo`,
  hasSkill: true,
  ...extra,
});
const modules = moduleBySpecifier([
  mod('@x/geo'),
  mod('@x/geo/hash', { status: 'skipped', kind: 'wasm', code: 'wasm-export-signature', reason: 'export `hash` takes i64', digest: undefined }),
]);

describe('declarations', () => {
  it('stamps version and digest when a module is selected, and removes it when cleared', () => {
    const on = toggleDeclaration([], '@x/geo', true, modules);
    expect(on).toEqual([{ specifier: '@x/geo', resolvedPackVersion: '2.0.0', contentDigest: B }]);
    expect(toggleDeclaration(on, '@x/geo', false, modules)).toEqual([]);
  });

  it('reports version and digest drift separately, and re-pin clears both', () => {
    const saved = [{ specifier: '@x/geo', resolvedPackVersion: '1.0.0', contentDigest: A }];
    const state = declarationState(saved[0]!, modules);
    expect(state).toMatchObject({
      kind: 'ready',
      drift: [
        { kind: 'version', saved: '1.0.0', installed: '2.0.0' },
        { kind: 'digest', saved: A, installed: B },
      ],
    });
    expect(driftMessage('@x/geo', { kind: 'version', saved: '1.0.0', installed: '2.0.0' })).toBe(
      '"@x/geo" was saved with version 1.0.0; 2.0.0 is installed and will be used.',
    );
    const pinned = repin(saved, '@x/geo', modules);
    expect(declarationState(pinned[0]!, modules)).toMatchObject({ kind: 'ready', drift: [] });
  });

  it('tells skipped and unavailable apart', () => {
    expect(declarationState({ specifier: '@x/geo/hash' }, modules).kind).toBe('skipped');
    expect(declarationState({ specifier: '@gone/pack' }, modules)).toEqual({ kind: 'unavailable' });
  });
});

describe('stampMissing', () => {
  it('stamps only unstamped declarations, so saving never hides drift', () => {
    const list = [{ specifier: '@x/geo' }, { specifier: '@x/geo/hash' }, { specifier: '@x/geo', resolvedPackVersion: '1.0.0' }];
    expect(stampMissing(list, modules)).toEqual([
      { specifier: '@x/geo', resolvedPackVersion: '2.0.0', contentDigest: B },
      { specifier: '@x/geo/hash' },
      { specifier: '@x/geo', resolvedPackVersion: '1.0.0' },
    ]);
  });
});

describe('setIsolation', () => {
  it('stores isolation: true on that declaration only, and turning it off removes the key', () => {
    const list = [{ specifier: '@x/geo', resolvedPackVersion: '2.0.0', contentDigest: B }, { specifier: '@x/geo/hash' }];
    const on = setIsolation(list, '@x/geo', true);
    expect(on).toEqual([{ specifier: '@x/geo', resolvedPackVersion: '2.0.0', contentDigest: B, isolation: true }, { specifier: '@x/geo/hash' }]);
    const off = setIsolation(on, '@x/geo', false);
    expect(off).toEqual(list);
    expect(Object.keys(off[0]!)).not.toContain('isolation');
    // The list given is never changed: the draft store sees a new value, so the edit is unsaved.
    expect(list[0]).not.toHaveProperty('isolation');
  });

  it('survives stamping at save and Re-pin', () => {
    expect(stampMissing([{ specifier: '@x/geo', isolation: true }], modules)).toEqual([
      { specifier: '@x/geo', resolvedPackVersion: '2.0.0', contentDigest: B, isolation: true },
    ]);
    expect(repin([{ specifier: '@x/geo', resolvedPackVersion: '1.0.0', contentDigest: A, isolation: true }], '@x/geo', modules)).toEqual([
      { specifier: '@x/geo', resolvedPackVersion: '2.0.0', contentDigest: B, isolation: true },
    ]);
    expect(repin([{ specifier: '@x/geo', resolvedPackVersion: '1.0.0' }], '@x/geo', modules)[0]).not.toHaveProperty('isolation');
  });
});
