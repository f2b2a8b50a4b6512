import { describe, expect, it } from 'vitest';
import type { Workflow } from '../../../shared/protocol/workflow.ts';
import { affectedNodes, belongsToPack } from './affected-nodes.ts';

const node = (id: string, ...specifiers: string[]) => ({ id, type: 'code' as const, code: '', packages: specifiers.map((specifier) => ({ specifier })) });

describe('affected nodes', () => {
  it('matches the pack name and its module specifiers, not packs that share a prefix', () => {
    expect(belongsToPack('@a/geo', '@a/geo')).toBe(true);
    expect(belongsToPack('@a/geo/simplify-wasm', '@a/geo')).toBe(true);
    expect(belongsToPack('@a/geo-extra', '@a/geo')).toBe(false);
    expect(belongsToPack('@a/geox/x', '@a/geo')).toBe(false);
  });

  it("lists each workflow node that declares one of the pack's specifiers", () => {
    const workflows: { name: string; workflow: Workflow }[] = [
      { name: 'Trips', workflow: { nodes: [node('distance', '@a/geo', 'other'), node('plain'), node('wasm', '@a/geo/simplify-wasm')] } },
      { name: 'Other', workflow: { nodes: [node('n1', '@a/geo-extra')] } },
    ];
    expect(affectedNodes('@a/geo', workflows)).toEqual([
      { workflow: 'Trips', nodeId: 'distance', specifiers: ['@a/geo'] },
      { workflow: 'Trips', nodeId: 'wasm', specifiers: ['@a/geo/simplify-wasm'] },
    ]);
    expect(affectedNodes('nothing', workflows)).toEqual([]);
  });
});
