import { describe, expect, it } from 'vitest';
import { specifierFor, splitSpecifier, validateModuleName } from './specifier.ts';

describe('validateModuleName', () => {
  it('accepts "." and single safe segments', () => {
    expect(validateModuleName('.')).toEqual({ ok: true, value: '.' });
    expect(validateModuleName('simplify-wasm')).toEqual({ ok: true, value: 'simplify-wasm' });
    expect(validateModuleName('v2.extra_1')).toEqual({ ok: true, value: 'v2.extra_1' });
  });

  it.each([
    ['', 'Module name is empty; use "." for the pack\'s root entry.'],
    ['a/b', 'Module name "a/b" contains a path separator; a name is one path segment.'],
    ['a\\b', 'Module name "a\\b" contains a path separator; a name is one path segment.'],
    ['..', 'Module name ".." is a relative path form.'],
    ['...', 'Module name "..." is a relative path form.'],
    ['%2e%2e', 'Module name "%2e%2e" contains percent-encoding.'],
    ['a\u0000b', 'Module name "a?b" contains a control character.'],
    ['.hidden', 'Module name ".hidden" may use only letters, digits, "-", "_" and ".", and must not start with "." or "-".'],
    ['-flag', 'Module name "-flag" may use only letters, digits, "-", "_" and ".", and must not start with "." or "-".'],
    ['caf\u00e9', 'Module name "caf\u00e9" may use only letters, digits, "-", "_" and ".", and must not start with "." or "-".'],
    ['trailing.', 'Module name "trailing." must not end with ".".'],
    ['node_modules', 'Module name "node_modules" is reserved.'],
    ['__proto__', 'Module name "__proto__" is reserved.'],
  ])('rejects %j', (name, message) => {
    expect(validateModuleName(name)).toEqual({ ok: false, code: 'module-name-invalid', message });
  });

  it('caps the length at LIMITS.moduleNameChars', () => {
    expect(validateModuleName('a'.repeat(64)).ok).toBe(true);
    const long = validateModuleName('a'.repeat(65));
    expect(long.ok).toBe(false);
    if (!long.ok) expect(long.message).toMatch(/is longer than 64 characters\.$/);
  });
});

describe('specifierFor / splitSpecifier', () => {
  it('follows the one rule', () => {
    expect(specifierFor('@acme/geo', '.')).toBe('@acme/geo');
    expect(specifierFor('@acme/geo', 'extra')).toBe('@acme/geo/extra');
    expect(specifierFor('csv', 'x')).toBe('csv/x');
  });
  it('splits scoped and unscoped specifiers', () => {
    expect(splitSpecifier('@acme/geo/extra')).toEqual({ packName: '@acme/geo', subpath: 'extra' });
    expect(splitSpecifier('@acme/geo')).toEqual({ packName: '@acme/geo', subpath: '' });
    expect(splitSpecifier('csv/a/b.js')).toEqual({ packName: 'csv', subpath: 'a/b.js' });
    expect(splitSpecifier('@acme')).toBeUndefined();
  });
});
