import { describe, expect, it } from 'vitest';
import { compareVersions, manifestSurface, packumentUrl, removedSurface } from './registry-metadata.ts';

describe('registry metadata helpers', () => {
  it('encodes a scoped name the way npm asks for it', () => {
    expect(packumentUrl('http://127.0.0.1:4873', '@a/b')).toBe('http://127.0.0.1:4873/@a%2fb');
    expect(packumentUrl('https://r.test/npm/', 'plain')).toBe('https://r.test/npm/plain');
  });

  it('orders versions numerically, a prerelease before its release', () => {
    expect(compareVersions('2.0.0', '1.9.9')).toBe(1);
    expect(compareVersions('1.10.0', '1.9.0')).toBe(1);
    expect(compareVersions('1.0.0', '1.0.0')).toBe(0);
    expect(compareVersions('1.0.0-beta.1', '1.0.0')).toBe(-1);
    expect(compareVersions('0.1.0', '0.2.0')).toBe(-1);
  });

  it('lists modules and WASM exports a newer manifest no longer declares', () => {
    const before = manifestSurface('@x/p', {
      apiVersion: 1,
      sandboxModules: [
        { name: '.', kind: 'js', file: 'a.js' },
        { name: 'old', kind: 'js', file: 'o.js' },
        { name: 'math', kind: 'wasm', file: 'm.wasm', memoryPagesMax: 1, exports: ['add', { wasm: 'mul_i32', as: 'mul' }] },
      ],
    });
    const after = manifestSurface('@x/p', {
      apiVersion: 1,
      sandboxModules: [
        { name: '.', kind: 'js', file: 'a.js' },
        { name: 'math', kind: 'wasm', file: 'm.wasm', memoryPagesMax: 1, exports: ['add'] },
      ],
    });
    expect(removedSurface(before, after)).toEqual({ removedModules: ['@x/p/old'], removedExports: [{ specifier: '@x/p/math', names: ['mul'] }] });
    expect(manifestSurface('@x/p', { not: 'a manifest' }).specifiers.size).toBe(0);
  });

  it('leaves out an entry whose name discovery would skip: it was never importable, and its specifier would not fit an answer', () => {
    const surface = manifestSurface('@x/p', {
      apiVersion: 1,
      sandboxModules: [
        { name: 'n'.repeat(256), kind: 'js', file: 'a.js' },
        { name: '../up', kind: 'js', file: 'b.js' },
        { name: 'ok', kind: 'js', file: 'c.js' },
      ],
    });
    expect([...surface.specifiers]).toEqual(['@x/p/ok']);
  });
});
