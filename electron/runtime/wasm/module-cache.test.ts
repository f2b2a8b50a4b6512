import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { HOST_MEMORY_IMPORT } from '../../../shared/packs/wasm-memory-import.ts';
import { WasmModuleCache } from './module-cache.ts';

const read = (path: string) => new Uint8Array(readFileSync(new URL(path, import.meta.url)));

describe('WasmModuleCache', () => {
  it('compiles a module with a small memory in its host-memory form, and one without a memory as it is', async () => {
    const cache = new WasmModuleCache();
    const hash = await cache.get(read('../../../packs/sandbox-hash/wasm/hash.wasm'));
    const geo = await cache.get(read('../../../packs/geo/wasm/geo.wasm'));
    if (!hash.ok || !geo.ok) throw new Error('the shipped binaries did not compile');
    expect(hash.value.memory).toEqual({ initial: 1, maximum: 160 });
    expect(WebAssembly.Module.imports(hash.value.module)).toEqual([{ ...HOST_MEMORY_IMPORT, kind: 'memory' }]);
    expect(geo.value.memory).toBeUndefined();
    expect(WebAssembly.Module.imports(geo.value.module)).toEqual([]);
  });

  it('still refuses a binary with imports of its own before compiling it', async () => {
    const cache = new WasmModuleCache();
    // (module (import "env" "m" (memory 1 1))): a pack binary may import nothing.
    const importing = Uint8Array.from([0, 0x61, 0x73, 0x6d, 1, 0, 0, 0, 2, 11, 1, 3, 0x65, 0x6e, 0x76, 1, 0x6d, 2, 1, 1, 1]);
    const answer = await cache.get(importing);
    expect(answer).toMatchObject({ ok: false, code: 'wasm-imports' });
  });
});
