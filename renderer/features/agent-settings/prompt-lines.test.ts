import { describe, expect, it } from 'vitest';
import type { InstalledPack } from '../../../shared/contract/pack-schemas.ts';
import type { ModuleSummary } from '../../../shared/contract/schemas.ts';
import { effectiveAllowlist, promptLines } from './prompt-lines.ts';

const pack = (name: string, trusted: boolean): InstalledPack => ({
  name,
  version: '1.0.0',
  installMode: trusted ? 'hybrid' : 'sandbox-only',
  status: 'active',
  sourceLabel: 'registry',
  integrity: 'sha512-x',
  scripts: [],
  trusted,
  installedAt: 'now',
});
const mod = (specifier: string, packName: string, status: ModuleSummary['status'] = 'ready'): ModuleSummary => ({
  specifier,
  packName,
  packVersion: '1.0.0',
  kind: 'js',
  status,
  summary: `${specifier} — line`,
  hasSkill: false,
});

describe('agent allowlist', () => {
  const packs = [pack('t', true), pack('u', false)];
  const modules = [mod('t', 't'), mod('t/skip', 't', 'skipped'), mod('u', 'u')];

  it('defaults to the ready modules of trusted packs only', () => {
    expect(effectiveAllowlist([], packs, modules)).toEqual({ specifiers: ['t'], isDefault: true });
    // Trust for use is the user's decision for any pack: shipped packs are trusted until revoked.
    const shipped = { ...pack('u', false), shipped: true };
    expect(effectiveAllowlist([], [pack('t', true), shipped], modules).specifiers).toEqual(['t', 'u']);
    expect(
      effectiveAllowlist(
        [],
        [
          { ...pack('t', true), useDecision: 'untrusted' },
          { ...shipped, useDecision: 'untrusted' },
        ],
        modules,
      ).specifiers,
    ).toEqual([]);
    expect(effectiveAllowlist([], [pack('t', true), { ...pack('u', false), useDecision: 'trusted' }], modules).specifiers).toEqual(['t', 'u']);
    expect(effectiveAllowlist(['u'], packs, modules)).toEqual({ specifiers: ['u'], isDefault: false });
  });

  it('advertises only allowed, ready modules, by their manifest-derived line', () => {
    expect(promptLines(['u', 't/skip', 'missing'], modules)).toEqual(['u — line']);
  });
});
