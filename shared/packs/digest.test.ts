import { describe, expect, it } from 'vitest';
import { DuplicateGraphSourceError, canonicalGraphBytes, moduleGraphDigest, moduleGraphDigestAsync, type GraphSource } from './digest.ts';

// The sync tests inject hex encoding as the "hash": injective, so equal digests mean equal
// canonical bytes. The real sha256 is checked through crypto.subtle below.
const hex = (bytes: Uint8Array) => [...bytes].map((b) => b.toString(16).padStart(2, '0')).join('');
const sha256 = hex;
const subtle = async (bytes: Uint8Array) => hex(new Uint8Array(await crypto.subtle.digest('SHA-256', bytes as Uint8Array<ArrayBuffer>)));
const a: GraphSource = { id: 'p@1/entry:p', kind: 'js', content: 'import "./u.js";' };
const u: GraphSource = { id: 'p@1/file:u.js', kind: 'internal', content: 'export {};' };
const w: GraphSource = { id: 'p@1/wasm:p/w', kind: 'wasm-binary', content: Uint8Array.from([0, 97, 115, 109]) };

describe('module-graph digest', () => {
  it('does not depend on the order sources are listed in', () => {
    expect(moduleGraphDigest([a, u, w], sha256)).toBe(moduleGraphDigest([w, u, a], sha256));
  });

  it('changes with any id, kind, content or producer', () => {
    const base = moduleGraphDigest([a, u], sha256);
    expect(moduleGraphDigest([a, { ...u, content: 'export {} ' }], sha256)).not.toBe(base);
    expect(moduleGraphDigest([a, { ...u, id: 'p@2/file:u.js' }], sha256)).not.toBe(base);
    expect(moduleGraphDigest([a, { ...u, kind: 'js' }], sha256)).not.toBe(base);
    expect(moduleGraphDigest([a, { ...u, producer: { compiler: 'esbuild@1' } }], sha256)).not.toBe(base);
    expect(moduleGraphDigest([a], sha256)).not.toBe(base);
  });

  it('length-prefixes fields so concatenations cannot collide', () => {
    const x = moduleGraphDigest([{ id: 'ab', kind: 'js', content: 'c' }], sha256);
    const y = moduleGraphDigest([{ id: 'a', kind: 'js', content: 'bc' }], sha256);
    expect(x).not.toBe(y);
  });

  it('is sha256 of the canonical bytes through the async (browser) path', async () => {
    const digest = await moduleGraphDigestAsync([a, u, w], subtle);
    expect(digest).toMatch(/^[0-9a-f]{64}$/);
    expect(digest).toBe(await subtle(canonicalGraphBytes([w, a, u])));
    expect(await moduleGraphDigestAsync([a, u], subtle)).not.toBe(digest);
  });

  it('hashes text as UTF-8, the same as equal bytes', () => {
    const text = canonicalGraphBytes([{ id: 'x', kind: 'js', content: 'é' }]);
    const raw = canonicalGraphBytes([{ id: 'x', kind: 'js', content: new TextEncoder().encode('é') }]);
    expect(text).toEqual(raw);
  });

  it('throws on duplicate ids (a collector bug)', () => {
    expect(() => canonicalGraphBytes([a, a])).toThrow(DuplicateGraphSourceError);
  });
});
