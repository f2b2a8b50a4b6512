import { describe, expect, it } from 'vitest';
import type { Workflow } from '../../../shared/protocol/workflow.ts';
import { breakingNodes, namedImports } from './update-breakage.ts';

const node = (id: string, code: string, specifiers: string[]) => ({
  id,
  type: 'code' as const,
  code,
  packages: specifiers.map((specifier) => ({ specifier })),
});
const wf = (nodes: ReturnType<typeof node>[]) => ({ nodes }) as unknown as Workflow;

describe('update breakage', () => {
  it('reads the names a node imports from one specifier', () => {
    expect(namedImports('import { add, mul as times } from "@x/p/math";\nimport { a } from "@x/p";', '@x/p/math')).toEqual(['add', 'mul']);
    expect(namedImports("import {a} from '@x/p'", '@x/p/math')).toEqual([]);
  });

  it('names each node that uses a removed module or a removed WASM export, and only those', () => {
    const workflows = [
      {
        name: 'trips',
        workflow: wf([node('n1', 'import { shout } from "@x/p/extra"; return shout("a");', ['@x/p/extra']), node('n2', 'return 1;', ['@x/p'])]),
      },
      { name: 'calc', workflow: wf([node('n3', 'import { mul } from "@x/p/math"; return mul(2, 3);', ['@x/p/math'])]) },
    ];
    expect(breakingNodes({ latest: '2.0.0', removedModules: ['@x/p/extra'], removedExports: [{ specifier: '@x/p/math', names: ['mul'] }] }, workflows)).toEqual(
      [
        { workflow: 'trips', nodeId: 'n1', reasons: ['uses @x/p/extra, which 2.0.0 removes'] },
        { workflow: 'calc', nodeId: 'n3', reasons: ['imports mul from @x/p/math, which 2.0.0 no longer exports'] },
      ],
    );
    expect(breakingNodes({ latest: '2.0.0', removedModules: [], removedExports: [] }, workflows)).toEqual([]);
  });
});
