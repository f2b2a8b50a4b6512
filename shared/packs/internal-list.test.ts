import { describe, expect, it } from 'vitest';
import { findCycle, normalizeInternalList } from './internal-list.ts';

describe('normalizeInternalList', () => {
  it('returns canonical pack-relative paths', () => {
    expect(normalizeInternalList(['./sandbox/util.js', 'lib/a/../b.js'])).toEqual({ ok: true, value: ['sandbox/util.js', 'lib/b.js'] });
  });
  it.each([
    [['lib/a.ts'], 'internal-invalid', 'internal entry "lib/a.ts" is not a .js file; internal helpers are JavaScript modules.'],
    [['../x.js'], 'internal-invalid', 'internal entry "../x.js": "../x.js" climbs above the pack root.'],
    [['/abs.js'], 'internal-invalid', 'internal entry "/abs.js": "/abs.js" is absolute; use a path relative to the pack root.'],
    [['lib/a.js', './lib/../lib/a.js'], 'internal-duplicate', 'internal entries "lib/a.js" and "./lib/../lib/a.js" name the same file "lib/a.js".'],
    [['lib/A.js', 'lib/a.js'], 'internal-duplicate', 'internal entries "lib/A.js" and "lib/a.js" name the same file "lib/a.js".'],
  ])('%j → %s', (list, code, message) => {
    expect(normalizeInternalList(list)).toEqual({ ok: false, code, message });
  });
});

describe('findCycle', () => {
  const graph = (edges: Record<string, string[]>) => (node: string) => edges[node] ?? [];
  const internal = (node: string) => node.startsWith('file:');

  it('finds a cycle through internal helpers', () => {
    const edges = { 'entry:a': ['file:x'], 'file:x': ['file:y'], 'file:y': ['file:x'] };
    expect(findCycle(Object.keys(edges), graph(edges), internal)).toEqual(['file:x', 'file:y']);
  });
  it('finds a cycle that passes through a public entry and a helper', () => {
    const edges = { 'entry:a': ['file:x'], 'file:x': ['entry:a'] };
    expect(findCycle(Object.keys(edges), graph(edges), internal)).toEqual(['entry:a', 'file:x']);
  });
  it('finds a self-import of a helper', () => {
    const edges = { 'file:x': ['file:x'] };
    expect(findCycle(Object.keys(edges), graph(edges), internal)).toEqual(['file:x']);
  });
  it('allows cycles among public entries and acyclic helpers', () => {
    const edges = { 'entry:a': ['entry:b', 'file:x'], 'entry:b': ['entry:a', 'file:x'], 'file:x': [] };
    expect(findCycle(Object.keys(edges), graph(edges), internal)).toBeUndefined();
  });
});
