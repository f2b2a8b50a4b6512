// Bench support: a generated pack whose one WASM export never returns (`spin()`: a loop that
// never ends, so the call lasts until its budget or its run's deadline stops it), written into a
// data dir's node_modules as @bench/spin. bench load's server and burst-resident use it.

import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { buildWasm, op } from '../../shared/testing/wasm-builder.ts';

const SPIN = buildWasm({
  funcs: [{ type: { params: [], results: ['i32'] }, body: [op.loop, op.blocktype_empty, op.br, 0, op.end, op.i32_const, 0] }],
  exports: [{ name: 'spin', kind: 'func', index: 0 }],
});

export async function writeSpinPack(dataDir: string): Promise<void> {
  const dir = path.join(dataDir, 'node_modules', '@bench', 'spin');
  await mkdir(dir, { recursive: true });
  const manifest = {
    name: '@bench/spin',
    version: '1.0.0',
    description: 'A WASM export that never returns (bench).',
    nodetool: {
      apiVersion: 1,
      sandboxModules: [{ name: '.', kind: 'wasm', file: 'spin.wasm', memoryPagesMax: 1, exports: ['spin'], description: 'Never returns.' }],
    },
  };
  await writeFile(path.join(dir, 'package.json'), JSON.stringify(manifest, null, 2));
  await writeFile(path.join(dir, 'SKILL.md'), '# @bench/spin\n\n`spin()` never returns.\n');
  await writeFile(path.join(dir, 'spin.wasm'), SPIN);
}
