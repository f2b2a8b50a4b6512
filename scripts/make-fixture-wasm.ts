// Regenerates the small WASM binaries committed under fixtures/discovery/ from readable
// descriptions, using the test-support builder in shared/testing/wasm-builder.ts. Run it with
// `node --import tsx scripts/make-fixture-wasm.ts` after changing a description; the test
// `electron/catalog/fixtures.test.ts` fails when a committed binary differs from its description.

import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildExportsModule, buildWasm, op } from '../shared/testing/wasm-builder.ts';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.join(here, '..', 'fixtures', 'discovery');

const add = { name: 'add', params: ['i32', 'i32'], results: ['i32'], body: [op.local_get, 0, op.local_get, 1, op.i32_add] } as const;

/** Fixture path (relative to fixtures/discovery) → binary. */
export const FIXTURE_WASM: Readonly<Record<string, Uint8Array>> = {
  'good/node_modules/@acme/geo/sandbox/simplify.wasm': buildExportsModule(
    [add, { name: 'scale-f64', params: ['f64', 'f64'], results: ['f64'], body: [op.local_get, 0, op.local_get, 1, op.f64_mul] }],
    { memories: [{ min: 1, max: 16 }] },
  ),
  'rules/node_modules/wasm-rules/ok.wasm': buildExportsModule([add], { memories: [{ min: 1, max: 1 }] }),
  'rules/node_modules/wasm-rules/imports.wasm': buildExportsModule([add], {
    imports: [{ module: 'env', name: 'log', kind: 'func', type: { params: ['i32'], results: [] } }],
  }),
  'rules/node_modules/wasm-rules/unbounded.wasm': buildExportsModule([add], { memories: [{ min: 1 }] }),
  'rules/node_modules/wasm-rules/big-memory.wasm': buildExportsModule([add], { memories: [{ min: 1, max: 64 }] }),
  'rules/node_modules/wasm-rules/shared-memory.wasm': buildExportsModule([add], { memories: [{ min: 1, max: 1, shared: true }] }),
  'rules/node_modules/wasm-rules/i64.wasm': buildExportsModule([{ name: 'hash', params: ['i64'], results: ['i32'] }]),
  'rules/node_modules/wasm-rules/memory-export.wasm': buildWasm({
    memories: [{ min: 1, max: 1 }],
    exports: [{ name: 'mem', kind: 'memory', index: 0 }],
  }),
  'rules/node_modules/wasm-rules/dash-name.wasm': buildExportsModule([{ ...add, name: 'foo-bar' }]),
  'rules/node_modules/wasm-rules/garbage.wasm': Uint8Array.from([0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00, 0x01, 0xff, 0xff]),
};

if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) {
  for (const [rel, bytes] of Object.entries(FIXTURE_WASM)) {
    await writeFile(path.join(root, rel), bytes);
    console.log(`wrote ${rel} (${bytes.byteLength} bytes)`);
  }
}
