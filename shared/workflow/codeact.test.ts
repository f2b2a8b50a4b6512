import { describe, expect, it } from 'vitest';
import type { SandboxModuleSummary } from '../protocol/catalog.ts';
import { codeActDeclarations, sessionPackageLines } from './codeact.ts';

const summary = (specifier: string, extra: Partial<SandboxModuleSummary> = {}): SandboxModuleSummary => ({
  specifier,
  packName: specifier.split('/').slice(0, 2).join('/'),
  packVersion: '1.0.0',
  kind: 'js',
  status: 'ready',
  summary: `${specifier} one-liner.`,
  hasSkill: false,
  ...extra,
});

describe('codeActDeclarations', () => {
  it("declares exactly the step's imports when all are session-allowed", () => {
    expect(
      codeActDeclarations('import { a } from "@acme/a";\nimport "@acme/a";\nimport b from "@acme/b";\nreturn a;', new Set(['@acme/a', '@acme/b', '@acme/c'])),
    ).toEqual({
      ok: true,
      value: [{ specifier: '@acme/a' }, { specifier: '@acme/b' }],
    });
  });

  it('refuses the step when an import is not on the allowlist, even if installed', () => {
    expect(codeActDeclarations('import x from "@evil/x";\nreturn x;', new Set(['@acme/a']))).toEqual({
      ok: false,
      code: 'session-not-allowed',
      message: 'The step imports "@evil/x", which is not on this session\'s package allowlist ("@acme/a"). Ask the user to allow the package for this session.',
    });
  });

  it('rejects import() before anything else', () => {
    expect(codeActDeclarations('await import("@acme/a")', new Set(['@acme/a']))).toMatchObject({ ok: false, code: 'dynamic-import' });
  });
});

describe('sessionPackageLines', () => {
  it('advertises only session-allowed, ready modules, from the one-line tier', () => {
    const summaries = [
      summary('@acme/geo', { exports: ['haversine'] }),
      summary('@acme/geo/simplify-wasm', { kind: 'wasm', exports: ['add', 'scale'] }),
      summary('@acme/other'),
      summary('@acme/broken', { status: 'skipped' }),
    ];
    expect(sessionPackageLines(summaries, new Set(['@acme/geo/simplify-wasm', '@acme/geo', '@acme/broken']))).toEqual([
      '- import from "@acme/geo" (JS): @acme/geo one-liner. exports: haversine.',
      '- import from "@acme/geo/simplify-wasm" (WASM, async exports): @acme/geo/simplify-wasm one-liner. exports: add, scale.',
    ]);
    expect(sessionPackageLines(summaries, new Set())).toEqual([]);
  });
});
