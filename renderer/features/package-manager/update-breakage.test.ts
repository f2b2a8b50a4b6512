import { describe, expect, it } from 'vitest';
import type { Workflow } from '../../../shared/protocol/workflow.ts';
import { breakingNodes, capabilityChange, namedImports } from './update-breakage.ts';

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

describe('capability change on update', () => {
  const sandboxOnly = { installMode: 'sandbox-only' as const, scripts: [] };
  it('names host code a sandbox-only pack gains, and that the new version waits for trust', () => {
    expect(capabilityChange(sandboxOnly, { latest: '2.0.0', latestMode: 'hybrid', latestRegister: 'register.js', latestScripts: [] })).toEqual({
      gains: ['2.0.0 adds host code: its register entry register.js runs on your computer, outside the sandbox, each time the app loads packs.'],
      inactiveAfter: true,
    });
  });

  it('names a new install script as run on trust for a host-code version, as not run for a sandbox-only one', () => {
    const hybrid = {
      installMode: 'hybrid' as const,
      scripts: [{ package: '@x/p', version: '1.0.0', event: 'postinstall', command: 'node a.js', own: true }],
    };
    const scripts = [
      { event: 'postinstall', command: 'node a.js' },
      { event: 'install', command: 'node-gyp rebuild' },
    ];
    expect(capabilityChange(hybrid, { latest: '2.0.0', latestMode: 'hybrid', latestRegister: 'r.js', latestScripts: scripts })).toEqual({
      gains: ['2.0.0 adds the install script install: node-gyp rebuild — it runs on your computer when you trust the pack.'],
      inactiveAfter: true,
    });
    expect(capabilityChange(sandboxOnly, { latest: '2.0.0', latestMode: 'sandbox-only', latestScripts: scripts.slice(0, 1) })).toEqual({
      gains: ['2.0.0 declares the install script postinstall: node a.js — it is not run, since a sandbox-only pack installs with scripts off.'],
      inactiveAfter: false,
    });
  });

  it('says nothing for a sandbox-only update, or when the registry gave no manifest', () => {
    expect(capabilityChange(sandboxOnly, { latest: '1.1.0', latestMode: 'sandbox-only', latestScripts: [] })).toEqual({ gains: [], inactiveAfter: false });
    expect(capabilityChange(sandboxOnly, { latest: '1.1.0' })).toEqual({ gains: [], inactiveAfter: false });
  });
});
