// The host-memory form of a WASM binary (shared/packs/wasm-memory-import.ts) and the workers' instance
// supply that zeroes and keeps its memory (shared/sandbox/wasm/instance-supply.mjs), on real binaries.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { InstanceSupply } from '../../../shared/sandbox/wasm/instance-supply.mjs';
import { invokeExport } from '../../../shared/sandbox/wasm/canonical-abi.mjs';
import { wat } from '../../../shared/testing/wat.ts';
import { HOST_MEMORY_IMPORT, HOST_MEMORY_MAX_PAGES, hostMemoryForm } from '../../../shared/packs/wasm-memory-import.ts';

const hashWasm = new Uint8Array(readFileSync(new URL('../../../packs/sandbox-hash/wasm/hash.wasm', import.meta.url)));
const geoWasm = new Uint8Array(readFileSync(new URL('../../../packs/geo/wasm/geo.wasm', import.meta.url)));

/** A custom section (id 0) named `name`, placed wherever the caller splices it. */
function customSection(name: string, payload: number[]): Uint8Array {
  const nameBytes = [...new TextEncoder().encode(name)];
  const body = [nameBytes.length, ...nameBytes, ...payload];
  return Uint8Array.from([0, body.length, ...body]);
}

const sha256Abi = { name: 'sha256', params: ['bytes'] as const, result: 'string' as const, maxResultBytes: 1024 };
const text = new TextDecoder();

describe('hostMemoryForm', () => {
  it('turns sandbox-hash’s own memory into the one import, and leaves its exports and answers as they were', () => {
    const form = hostMemoryForm(hashWasm);
    expect(form).toBeDefined();
    if (!form) return;
    const original = new WebAssembly.Module(hashWasm);
    const hosted = new WebAssembly.Module(form.bytes);
    expect(WebAssembly.Module.imports(original)).toEqual([]);
    expect(WebAssembly.Module.imports(hosted)).toEqual([{ module: HOST_MEMORY_IMPORT.module, name: HOST_MEMORY_IMPORT.name, kind: 'memory' }]);
    expect(WebAssembly.Module.exports(hosted)).toEqual(WebAssembly.Module.exports(original));
    expect(form.memory).toEqual({ initial: 1, maximum: 160 });

    const input = new TextEncoder().encode('abc');
    const fresh = invokeExport(new WebAssembly.Instance(original, {}), 'sha256', [input], { ...sha256Abi, params: [...sha256Abi.params] });
    const supply = new InstanceSupply();
    const answers: string[] = [];
    for (let i = 0; i < 3; i++) {
      const { instance, memory } = supply.instantiate('hash', hosted, form.memory);
      answers.push(text.decode(invokeExport(instance, 'sha256', [input], { ...sha256Abi, params: [...sha256Abi.params] }) as Uint8Array));
      supply.release('hash', form.memory, memory);
    }
    expect(text.decode(fresh as Uint8Array)).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    expect(answers).toEqual(Array(3).fill(text.decode(fresh as Uint8Array)));
  });

  it('declines what it cannot rewrite: no memory, too large a memory, no maximum; imports the host memory even past custom sections', () => {
    expect(hostMemoryForm(geoWasm)).toBeUndefined();
    expect(hostMemoryForm(wat(`(module (memory (export "memory") ${HOST_MEMORY_MAX_PAGES + 1} 64))`))).toBeUndefined();
    expect(hostMemoryForm(wat(`(module (memory (export "memory") 1))`))).toBeUndefined();
    expect(hostMemoryForm(Uint8Array.from([0, 0x61, 0x73, 0x6d, 1, 0, 0, 0, 5, 9]))).toBeUndefined(); // truncated

    // Custom sections before the type section and between type and function sections.
    const plain = wat(
      `(module (memory (export "memory") 2 3) (data (i32.const 8) "hi") (func (export "at") (param i32) (result i32) (i32.load8_u (local.get 0))))`,
    );
    const typeEnd = 8 + 2 + (plain[9] as number);
    expect(plain[8]).toBe(1); // the type section comes first, with a one-byte size
    const spliced = new Uint8Array([
      ...plain.subarray(0, 8),
      ...customSection('a', [1]),
      ...plain.subarray(8, typeEnd),
      ...customSection('b', [2, 3]),
      ...plain.subarray(typeEnd),
    ]);
    const form = hostMemoryForm(spliced);
    expect(form?.memory).toEqual({ initial: 2, maximum: 3 });
    if (!form) return;
    const module = new WebAssembly.Module(form.bytes);
    expect(WebAssembly.Module.customSections(module, 'a')).toHaveLength(1);
    expect(WebAssembly.Module.customSections(module, 'b')).toHaveLength(1);
    const memory = new WebAssembly.Memory(form.memory);
    const at = new WebAssembly.Instance(module, { [HOST_MEMORY_IMPORT.module]: { [HOST_MEMORY_IMPORT.name]: memory } }).exports.at as (p: number) => number;
    expect([at(8), at(9), at(10)]).toEqual([104, 105, 0]);
  });
});

describe('InstanceSupply', () => {
  const module = (() => {
    const form = hostMemoryForm(
      wat(`(module (memory (export "memory") 1 2) (data (i32.const 4) "x")
      (func (export "poke") (i32.store8 (i32.const 100) (i32.const 7)) (i32.store8 (i32.const 4) (i32.const 0)))
      (func (export "grow") (drop (memory.grow (i32.const 1))))
      (func (export "peek") (result i32) (i32.add (i32.mul (i32.load8_u (i32.const 100)) (i32.const 1000)) (i32.load8_u (i32.const 4)))))`),
    );
    if (!form) throw new Error('the test module has no host-memory form');
    return { compiled: new WebAssembly.Module(form.bytes), shape: form.memory };
  })();

  function call(supply: InstanceSupply, name: string): number | undefined {
    const { instance, memory } = supply.instantiate('m', module.compiled, module.shape);
    try {
      return (instance.exports[name] as () => number | undefined)();
    } finally {
      supply.release('m', module.shape, memory);
    }
  }

  it('keeps one memory per module, zeroes it before its next call and writes the data segments again', () => {
    const supply = new InstanceSupply();
    expect(call(supply, 'peek')).toBe(120); // "x" is 120
    call(supply, 'poke');
    expect(supply.kept).toBe(1);
    expect(call(supply, 'peek')).toBe(120);
  });

  it('never hands out a memory that grew, and keeps at most `maxKept` memories', () => {
    const supply = new InstanceSupply(2);
    call(supply, 'grow');
    expect(supply.kept).toBe(0);
    expect(call(supply, 'peek')).toBe(120);
    const other = (digest: string) => supply.release(digest, module.shape, new WebAssembly.Memory(module.shape));
    other('a');
    other('b');
    expect(supply.kept).toBe(2);
  });

  it('instantiates a module without a host memory as before, with an empty import object', () => {
    const supply = new InstanceSupply();
    const made = supply.instantiate('geo', new WebAssembly.Module(geoWasm), undefined);
    expect(made.memory).toBeUndefined();
    expect(made.instance.exports).toBeDefined();
  });
});
