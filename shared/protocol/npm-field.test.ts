import { describe, expect, it } from 'vitest';
import { JsModuleEntrySchema, NPM_FIELD_MAX, parseNpmField } from './manifest.ts';

describe('parseNpmField', () => {
  it('splits a package and its subpath, scoped or not', () => {
    expect(parseNpmField('nanoid')).toEqual({ ok: true, value: { packageName: 'nanoid' } });
    expect(parseNpmField('nanoid/non-secure')).toEqual({ ok: true, value: { packageName: 'nanoid', subpath: './non-secure' } });
    expect(parseNpmField('csv-parse/browser/esm/sync')).toEqual({ ok: true, value: { packageName: 'csv-parse', subpath: './browser/esm/sync' } });
    expect(parseNpmField('@scope/pkg')).toEqual({ ok: true, value: { packageName: '@scope/pkg' } });
    expect(parseNpmField('@scope/pkg/dist/x.mjs')).toEqual({ ok: true, value: { packageName: '@scope/pkg', subpath: './dist/x.mjs' } });
    expect(parseNpmField('date-fns/locale/en-US')).toEqual({ ok: true, value: { packageName: 'date-fns', subpath: './locale/en-US' } });
  });

  it('refuses a path or a bad package name with the same sentence as before subpaths existed', () => {
    for (const value of ['../outside', '/etc/passwd', './local', 'Upper', '@scope', '@/x', '\\\\host\\share', 'C:/x']) {
      expect(parseNpmField(value)).toEqual({
        ok: false,
        message: `"${value}" is not an npm package name; the "npm" field must name a dependency, not a path.`,
      });
    }
  });

  it('refuses subpaths that could climb, hide a traversal or name a nested package', () => {
    const cases = [
      'lib/../../x',
      'lib/./x',
      'lib//x',
      'lib/',
      'lib/%2e%2e/x',
      'lib/a%2fb',
      'lib/a\\..\\b',
      'lib/node_modules/x',
      'lib/NODE_MODULES/x',
      'lib/*',
      'lib/a:b',
    ];
    for (const value of cases) {
      const parsed = parseNpmField(value);
      expect(parsed.ok, value).toBe(false);
      if (!parsed.ok) expect(parsed.message).toMatch(/^"[^"]+": "[^"]*" is not a plain subpath of lib; /);
    }
    expect(parseNpmField(`lib/${'a'.repeat(257)}`).ok).toBe(false);
    expect(parseNpmField(`lib/${'a'.repeat(256)}`).ok).toBe(true);
  });

  it('the manifest schema takes the longest legal field, so a long subpath is judged by the compiler, not the schema', () => {
    const longest = `${'n'.repeat(214)}/${'s'.repeat(256)}`;
    expect(longest.length).toBe(NPM_FIELD_MAX);
    expect(JsModuleEntrySchema.safeParse({ name: '.', kind: 'js', npm: longest }).success).toBe(true);
    expect(JsModuleEntrySchema.safeParse({ name: '.', kind: 'js', npm: `${longest}x` }).success).toBe(false);
  });
});
