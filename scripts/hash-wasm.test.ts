// The sandbox-hash pack's WASM module (wasm-src/hash.ts → packs/sandbox-hash/wasm/hash.wasm),
// called the way the hosts call it: one fresh WebAssembly.Instance per call, arguments lowered and
// results lifted by the hosts' own canonical-ABI code (shared/sandbox/wasm/canonical-abi.mjs),
// with the types the pack's manifest declares. Answers are compared with node:crypto, zlib and
// Buffer on random inputs around SHA-256's block and padding boundaries and at 1 MB; the memory
// limits SKILL.md states are checked at their edges. The pack's JS entry runs through the real
// host in shipped-packs.test.ts (its SKILL.md examples).

import { createHash, randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { crc32 as zlibCrc32 } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { instantiatesQuietly, validateWasmBinary } from '../shared/packs/wasm-binary.ts';
import { invokeExport, type CallAbi, type CallAbiType } from '../shared/sandbox/wasm/canonical-abi.mjs';

const root = new URL('..', import.meta.url);
const PACK = new URL('packs/sandbox-hash/', root);

interface TypedExport {
  readonly wasm: string;
  readonly as: string;
  readonly params: CallAbiType[];
  readonly result?: CallAbiType;
}
interface WasmEntry {
  readonly name: string;
  readonly kind: string;
  readonly file: string;
  readonly memoryPagesMax: number;
  readonly exports: TypedExport[];
}

// Read as plain JSON: the typed export form is the contract being built (docs/wasm-host.md).
const pkg = JSON.parse(readFileSync(new URL('package.json', PACK), 'utf8')) as { nodetool: { sandboxModules: WasmEntry[] } };
const entry = pkg.nodetool.sandboxModules.find((m) => m.kind === 'wasm') as WasmEntry;
const bytes = new Uint8Array(readFileSync(new URL(entry.file, PACK)));
const module = new WebAssembly.Module(bytes);
const MAX_RESULT_BYTES = 16 * 1024 * 1024; // LIMITS.wasmCallOutputBytes

const declared = (as: string): TypedExport => {
  const found = entry.exports.find((e) => e.as === as);
  if (!found) throw new Error(`the manifest declares no ${as}`);
  return found;
};

/** One call, as a host makes it: a fresh instance, strings as UTF-8, the manifest's types. */
function call(as: string, ...args: (Uint8Array | string | number)[]): number | undefined | Uint8Array | string {
  const exp = declared(as);
  const abi: CallAbi = { name: exp.as, params: exp.params, ...(exp.result ? { result: exp.result } : {}), maxResultBytes: MAX_RESULT_BYTES };
  const lowered = args.map((a) => (typeof a === 'string' ? new TextEncoder().encode(a) : a));
  const value = invokeExport(new WebAssembly.Instance(module, {}), exp.wasm, lowered, abi);
  // A string result arrives as its UTF-8; the dispatcher decodes it (strictly), as here.
  return exp.result === 'string' && value instanceof Uint8Array ? new TextDecoder('utf-8', { fatal: true }).decode(value) : value;
}

const SIZES = [0, 1, 2, 3, 55, 56, 57, 63, 64, 65, 119, 120, 127, 128, 1000, 1 << 20];
const inputs = SIZES.map((n) => ({ n, data: new Uint8Array(randomBytes(n)) }));
const sha256Hex = (data: Uint8Array): string => createHash('sha256').update(data).digest('hex');
/** Random text with 1- to 4-byte UTF-8 characters. */
const randomText = (chars: number): string =>
  Array.from(randomBytes(chars), (b) => ['a', 'é', '€', '🌍'][b % 4] as string)
    .join('')
    .slice(0, chars * 2);

describe('packs/sandbox-hash/wasm/hash.wasm', () => {
  it('is what the manifest declares: no imports, memory bounded at memoryPagesMax, (ptr, len) signatures, no start function', () => {
    expect(WebAssembly.Module.imports(module)).toEqual([]);
    expect(
      WebAssembly.Module.exports(module)
        .map((e) => `${e.kind} ${e.name}`)
        .sort(),
    ).toEqual([...new Set(entry.exports.map((e) => `function ${e.wasm}`)), 'function cabi_realloc', 'memory memory'].sort());
    // The scalar validator judges the core signatures; the typed declaration is judged by the byte ABI's.
    const result = validateWasmBinary(bytes, { memoryPagesMax: entry.memoryPagesMax, exports: entry.exports.map(({ wasm, as }) => ({ wasm, as })) });
    if (!result.ok) throw new Error(result.message);
    expect(result.value.exports.map((e) => `${e.as}(${e.params.join(',')}) -> ${e.results.join(',')}`)).toEqual(
      entry.exports.map((e) => `${e.as}(i32,i32) -> i32`),
    );
    expect(validateWasmBinary(bytes, { memoryPagesMax: entry.memoryPagesMax - 1, exports: [] })).toMatchObject({ ok: false, code: 'wasm-memory-too-large' });
    // A worker may instantiate it ahead of its call (the stub runtime's allocator would need a start function).
    expect(result.value.instantiation).toEqual({ start: false, memoryPages: 1, tableElements: 0 });
    expect(instantiatesQuietly(result.value.instantiation)).toBe(true);
    const memory = new WebAssembly.Instance(module, {}).exports.memory as WebAssembly.Memory;
    expect(() => memory.grow(entry.memoryPagesMax)).toThrow(RangeError);
    expect(memory.grow(entry.memoryPagesMax - 1)).toBe(1);
  });

  it('sha256, sha256Text and sha256Bytes agree with node:crypto', () => {
    for (const { n, data } of inputs) {
      const hex = sha256Hex(data);
      expect(call('sha256', data), `${n} bytes`).toBe(hex);
      expect(call('sha256Text', data), `${n} bytes`).toBe(hex); // string params arrive as UTF-8 bytes: the same lowering
      expect(Buffer.from(call('sha256Bytes', data) as Uint8Array).toString('hex'), `${n} bytes`).toBe(hex);
    }
    expect(call('sha256Text', 'abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    for (const text of ['', 'héllo, wörld 🌍', randomText(40), randomText(5000)]) {
      expect(call('sha256Text', text)).toBe(createHash('sha256').update(text, 'utf8').digest('hex'));
    }
  });

  it('crc32 and crc32Text agree with zlib (as a signed i32, the JS entry makes it unsigned)', () => {
    expect(call('crc32Text', '123456789')).toBe(0xcbf43926 | 0); // the standard check value
    for (const { n, data } of inputs) {
      expect(call('crc32', data), `${n} bytes`).toBe(zlibCrc32(data) | 0);
      expect(call('crc32Text', data), `${n} bytes`).toBe(zlibCrc32(data) | 0);
    }
    const text = randomText(300);
    expect(call('crc32Text', text)).toBe(zlibCrc32(text) | 0);
  });

  it('base64Encode and base64EncodeText agree with Buffer; base64Decode inverts them', () => {
    for (const { n, data } of inputs) {
      const expected = Buffer.from(data).toString('base64');
      expect(call('base64Encode', data), `${n} bytes`).toBe(expected);
      expect(call('base64EncodeText', data), `${n} bytes`).toBe(expected);
      expect(Buffer.from(call('base64Decode', expected) as Uint8Array).equals(Buffer.from(data)), `${n} bytes`).toBe(true);
    }
    const text = randomText(300);
    expect(call('base64EncodeText', text)).toBe(Buffer.from(text, 'utf8').toString('base64'));
    expect(call('base64Encode', new Uint8Array([255, 254, 253]))).toBe('//79');
    expect([...(call('base64Decode', '+/+/') as Uint8Array)]).toEqual([0xfb, 0xff, 0xbf]);
  });

  it('base64Decode traps on anything but standard, padded base64; ignores non-zero padding bits as Buffer does', () => {
    const badLength = ['A', 'AB', 'ABC', 'ABCDE', 'QQ', 'QQ=', 'aGk=\n'];
    const badPadding = ['Q===', '====', 'QQ=A', 'QQ==QQ=='];
    const badCharacters = ['ab c', 'QU\nD', '-_-_', 'aGk*', 'é12', 'QUJD\0\0\0\0'];
    for (const bad of [...badLength, ...badPadding, ...badCharacters]) {
      expect(() => call('base64Decode', bad), JSON.stringify(bad)).toThrow(new WebAssembly.RuntimeError('unreachable'));
    }
    for (const lax of ['QR==', 'QUJ=', 'QUJD']) {
      expect([...(call('base64Decode', lax) as Uint8Array)], lax).toEqual([...Buffer.from(lax, 'base64')]);
    }
    expect(call('base64Decode', '')).toEqual(new Uint8Array(0));
  });

  it('holds the inputs SKILL.md promises in its 160 pages, and traps past them', () => {
    const MiB = 1024 * 1024;
    const four = new Uint8Array(randomBytes(4 * MiB));
    expect(call('base64Encode', four)).toBe(Buffer.from(four).toString('base64'));
    expect(() => call('base64Encode', new Uint8Array(4.5 * MiB))).toThrow(new WebAssembly.RuntimeError('unreachable'));
    const ten = new Uint8Array(10_000_000);
    expect(call('sha256', ten)).toBe(sha256Hex(ten));
    expect(call('crc32', ten)).toBe(zlibCrc32(ten) | 0);
    expect(call('base64Decode', 'A'.repeat(10_000_000))).toHaveLength(7_500_000); // decoded in place
    // Past the module's memory, cabi_realloc itself traps: before any of the input is copied.
    expect(() => call('sha256', new Uint8Array(10 * MiB))).toThrow(new WebAssembly.RuntimeError('unreachable'));
  });

  it('cabi_realloc honours align, keeps a block’s bytes when it grows or moves, and traps on a bad align', () => {
    const instance = new WebAssembly.Instance(module, {});
    const ex = instance.exports as { cabi_realloc(p: number, o: number, a: number, n: number): number; memory: WebAssembly.Memory };
    const view = () => new Uint8Array(ex.memory.buffer);
    const first = ex.cabi_realloc(0, 0, 1, 3);
    for (const align of [1, 2, 4, 8, 16, 64, 4096]) expect(ex.cabi_realloc(0, 0, align, 5) % align, `align ${align}`).toBe(0);
    // The last block grows in place…
    const last = ex.cabi_realloc(0, 0, 8, 4);
    view().set([1, 2, 3, 4], last);
    const grown = ex.cabi_realloc(last, 4, 8, 100_000); // and memory grows under it
    expect(grown).toBe(last);
    expect([...view().subarray(grown, grown + 4)]).toEqual([1, 2, 3, 4]);
    // …an earlier one moves, its bytes copied.
    view().set([9, 8, 7], first);
    const moved = ex.cabi_realloc(first, 3, 1, 10);
    expect(moved).not.toBe(first);
    expect([...view().subarray(moved, moved + 3)]).toEqual([9, 8, 7]);
    for (const align of [0, 3, 12, 1 << 17]) expect(() => ex.cabi_realloc(0, 0, align, 1), `align ${align}`).toThrow(WebAssembly.RuntimeError);
    expect(() => ex.cabi_realloc(0, 0, 1, 2 ** 30 + 1)).toThrow(WebAssembly.RuntimeError);
  });
});
