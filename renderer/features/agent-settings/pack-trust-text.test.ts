import { describe, expect, it } from 'vitest';
import type { InstalledPack } from '../../../shared/contract/pack-schemas.ts';
import { packTrustText } from './pack-trust-text.ts';

const row = (name: string, over: Partial<InstalledPack>): InstalledPack => ({
  name,
  version: '1.0.0',
  installMode: 'hybrid',
  status: 'active',
  sourceLabel: 'registry',
  integrity: 'sha512-x',
  scripts: [],
  trusted: false,
  installedAt: 'now',
  ...over,
});

describe('agent allowlist trust wording', () => {
  const packs = [
    row('failed', { trusted: true, status: 'needs-rebuild', setupFailure: { code: 'lifecycle-failed', message: 'npm error code 1' } }),
    row('ok', { trusted: true }),
    row('waiting', { status: 'needs-trust' }),
    row('plain', { installMode: 'sandbox-only' }),
  ];

  it('says a trusted pack whose setup failed failed, in the Package Manager chip words', () => {
    expect(packTrustText(packs, 'failed')).toBe('offered to agents once active; setup failed · inactive');
    expect(packTrustText(packs, 'ok')).toBe('offered to agents; trusted · active');
    expect(packTrustText(packs, 'waiting')).toBe('not offered to agents; needs trust · inactive');
    expect(packTrustText(packs, 'plain')).toBe('not offered to agents; sandbox-only · active');
    expect(packTrustText([row('shipped', { installMode: 'sandbox-only', shipped: true })], 'shipped')).toBe('offered to agents; sandbox-only · active');
    expect(packTrustText([row('revoked', { trusted: true, useDecision: 'untrusted' })], 'revoked')).toBe('not offered to agents; trusted · active');
    expect(packTrustText(packs, 'gone')).toBe('pack not installed');
  });
});
