import { describe, expect, it } from 'vitest';
import { normalizePackPath, resolveRelative } from './pack-path.ts';

describe('normalizePackPath', () => {
  it.each([
    ['sandbox/geo.js', 'sandbox/geo.js'],
    ['./sandbox/./geo.js', 'sandbox/geo.js'],
    ['sandbox/x/../geo.js', 'sandbox/geo.js'],
  ])('%s → %s', (raw, out) => {
    expect(normalizePackPath(raw)).toEqual({ ok: true, value: out });
  });

  it.each([
    ['../x.js', 'escape', '"../x.js" climbs above the pack root'],
    ['a/../../x.js', 'escape', '"a/../../x.js" climbs above the pack root'],
    ['/etc/passwd', 'absolute', '"/etc/passwd" is absolute; use a path relative to the pack root'],
    ['C:/x.js', 'absolute', '"C:/x.js" is absolute; use a path relative to the pack root'],
    ['file:x.js', 'absolute', '"file:x.js" is absolute; use a path relative to the pack root'],
    ['%2e%2e/x.js', 'encoded', '"%2e%2e/x.js" contains percent-encoding'],
    ['a\\..\\x.js', 'invalid', '"a\\..\\x.js" contains a backslash or a control character'],
    ['a//b.js', 'invalid', '"a//b.js" has an empty path segment'],
    ['a/', 'invalid', '"a/" names a directory, not a file'],
    ['.', 'invalid', '"." names the pack root, not a file'],
  ])('rejects %j as %s', (raw, code, message) => {
    expect(normalizePackPath(raw)).toEqual({ ok: false, code, message });
  });
});

describe('resolveRelative', () => {
  it('resolves against the importer directory', () => {
    expect(resolveRelative('sandbox/geo.js', './util.js')).toEqual({ ok: true, value: 'sandbox/util.js' });
    expect(resolveRelative('sandbox/geo.js', '../lib/u.js')).toEqual({ ok: true, value: 'lib/u.js' });
    expect(resolveRelative('geo.js', '../x.js').ok).toBe(false);
  });
});
