import { describe, expect, it } from 'vitest';
import type { ModuleSummary } from '../../../shared/contract/schemas.ts';
import { moduleBySpecifier } from './declarations.ts';
import { validateNode } from './validate-node.ts';

const D = 'd'.repeat(64);
const modules = moduleBySpecifier([
  { specifier: 'geo', packName: 'geo', packVersion: '1.0.0', kind: 'js', status: 'ready', digest: D, summary: 'geo', hasSkill: false },
  { specifier: 'geo/hash', packName: 'geo', packVersion: '1.0.0', kind: 'wasm', status: 'skipped', code: 'wasm-export-signature', reason: 'export `hash` takes i64', summary: 'x', hasSkill: false },
] satisfies ModuleSummary[]);

describe('validateNode', () => {
  it('accepts a node whose imports match its pinned declaration', () => {
    expect(validateNode('import { d } from "geo";\nreturn d(1);', [{ specifier: 'geo', resolvedPackVersion: '1.0.0', contentDigest: D }], modules)).toEqual([]);
  });

  it('reports each problem with its code, at the severity validate uses', () => {
    const issues = validateNode('import "nope";\nreturn 1;', [{ specifier: 'geo', resolvedPackVersion: '0.9.0' }, { specifier: 'geo/hash' }, { specifier: 'gone' }], modules);
    expect(issues.map((i) => [i.severity, i.code, i.specifier])).toEqual([
      ['warning', 'version-mismatch', 'geo'],
      ['error', 'module-skipped', 'geo/hash'],
      ['error', 'unknown-specifier', 'gone'],
      ['error', 'import-undeclared', 'nope'],
      ['warning', 'declared-unused', 'geo'],
      ['warning', 'declared-unused', 'geo/hash'],
      ['warning', 'declared-unused', 'gone'],
    ]);
    expect(issues[1]!.message).toBe('"geo/hash" was skipped when its pack was discovered: export `hash` takes i64.');
  });

  it('reports a syntax error and import() with the analyzer\'s codes', () => {
    expect(validateNode('return (', [], modules).map((i) => i.code)).toEqual(['syntax-error']);
    expect(validateNode('return import("geo")', [], modules).map((i) => i.code)).toEqual(['dynamic-import']);
  });
});
