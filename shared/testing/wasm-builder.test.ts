// The builder is test support, but a wrong builder would make every WASM test meaningless:
// check its encodings and that what it emits is what the engine reads.

import { describe, expect, it } from 'vitest';
import { buildExportsModule, buildWasm, f32Bytes, op, sleb, uleb } from './wasm-builder.ts';

describe('LEB128', () => {
  it('encodes unsigned values', () => {
    expect(uleb(0)).toEqual([0]);
    expect(uleb(127)).toEqual([0x7f]);
    expect(uleb(128)).toEqual([0x80, 0x01]);
    expect(uleb(624485)).toEqual([0xe5, 0x8e, 0x26]);
    expect(uleb(0xffffffff)).toEqual([0xff, 0xff, 0xff, 0xff, 0x0f]);
    expect(() => uleb(-1)).toThrow(RangeError);
  });

  it('encodes signed values', () => {
    expect(sleb(0)).toEqual([0]);
    expect(sleb(-1)).toEqual([0x7f]);
    expect(sleb(63)).toEqual([0x3f]);
    expect(sleb(64)).toEqual([0xc0, 0x00]);
    expect(sleb(-123456)).toEqual([0xc0, 0xbb, 0x78]);
    expect(sleb(-(2 ** 31))).toEqual([0x80, 0x80, 0x80, 0x80, 0x78]);
  });
});

describe('buildWasm', () => {
  it('emits the empty module', () => {
    expect([...buildWasm({})]).toEqual([0, 0x61, 0x73, 0x6d, 1, 0, 0, 0]);
  });

  it('emits modules the engine runs as described', () => {
    const bytes = buildWasm({
      funcs: [
        { type: { params: ['i32', 'i32'], results: ['i32'] }, body: [op.local_get, 0, op.local_get, 1, op.i32_sub] },
        { type: { params: ['f32'], results: ['f32'] }, body: [op.local_get, 0, op.f32_const, ...f32Bytes(0.5), op.f32_add] },
        { type: { params: [], results: ['i32'] }, body: [op.global_get, 0, op.i32_const, 1, op.i32_add, op.global_set, 0, op.global_get, 0] },
        { type: { params: [], results: ['i32'] }, body: [op.i32_const, 0, op.i32_load, 2, 0] },
      ],
      memories: [{ min: 1, max: 1 }],
      globals: [{ type: 'i32', mutable: true, init: [op.i32_const, ...sleb(41)] }],
      data: [{ offset: 0, bytes: [7, 0, 0, 0] }],
      exports: [
        { name: 'sub', kind: 'func', index: 0 },
        { name: 'half', kind: 'func', index: 1 },
        { name: 'bump', kind: 'func', index: 2 },
        { name: 'peek', kind: 'func', index: 3 },
        { name: 'mem', kind: 'memory', index: 0 },
      ],
    });
    const { exports } = new WebAssembly.Instance(new WebAssembly.Module(bytes), {}) as unknown as {
      exports: { sub(a: number, b: number): number; half(a: number): number; bump(): number; peek(): number; mem: WebAssembly.Memory };
    };
    expect(exports.sub(5, 7)).toBe(-2);
    expect(exports.half(1)).toBe(1.5);
    expect(exports.bump()).toBe(42);
    expect(exports.peek()).toBe(7);
    expect(exports.mem.buffer.byteLength).toBe(65536);
  });

  it('emits imports the engine reports', () => {
    const bytes = buildExportsModule([{ name: 'f', params: [], results: [] }], {
      imports: [
        { module: 'env', name: 'log', kind: 'func', type: { params: ['i32'], results: [] } },
        { module: 'env', name: 'g', kind: 'global', type: 'f64' },
      ],
    });
    const module = new WebAssembly.Module(bytes);
    expect(WebAssembly.Module.imports(module)).toEqual([
      { module: 'env', name: 'log', kind: 'function' },
      { module: 'env', name: 'g', kind: 'global' },
    ]);
    expect(WebAssembly.Module.exports(module)).toEqual([{ name: 'f', kind: 'function' }]);
  });

  it('writes the memory limit flags', () => {
    const memory = (limits: Parameters<typeof buildWasm>[0]['memories']) => [...buildWasm({ memories: limits ?? [] }).subarray(8)];
    expect(memory([{ min: 1 }])).toEqual([5, 3, 1, 0, 1]);
    expect(memory([{ min: 1, max: 2 }])).toEqual([5, 4, 1, 1, 1, 2]);
    expect(memory([{ min: 1, max: 2, shared: true }])).toEqual([5, 4, 1, 3, 1, 2]);
    expect(memory([{ min: 1, max: 2, memory64: true }])).toEqual([5, 4, 1, 5, 1, 2]);
  });
});
