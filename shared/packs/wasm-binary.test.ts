// One binary per rule, built with the test builder, plus a cross-check against the engine: every
// binary the validator accepts must compile, and the validator's reading of it must match what
// WebAssembly.Module reports.

import { describe, expect, it } from 'vitest';
import { buildExportsModule, buildWasm, f64Bytes, op, sleb, uleb, type BuilderValType } from '../testing/wasm-builder.ts';
import { wat } from '../testing/wat.ts';
import { instantiatesQuietly, isGuestExportName, validateWasmBinary } from './wasm-binary.ts';

const add = buildExportsModule([{ name: 'add', params: ['i32', 'i32'], results: ['i32'], body: [op.local_get, 0, op.local_get, 1, op.i32_add] }], {
  memories: [{ min: 1, max: 2 }],
});

/** Accepted by the validator — and then the engine must compile it too (the builder cross-check). */
function expectAccepted(bytes: Uint8Array<ArrayBuffer>, entry: Parameters<typeof validateWasmBinary>[1]) {
  const result = validateWasmBinary(bytes, entry);
  expect(result.ok).toBe(true);
  expect(() => new WebAssembly.Module(bytes)).not.toThrow();
  return result;
}

function expectFail(bytes: Uint8Array, entry: Parameters<typeof validateWasmBinary>[1], code: string, message: string) {
  const result = validateWasmBinary(bytes, entry);
  expect(result).toEqual({ ok: false, code, message });
}

describe('validateWasmBinary: accepted binaries', () => {
  it('returns the declared signatures in declaration order', () => {
    const bytes = buildExportsModule([
      { name: 'a', params: ['i32'], results: ['i32'] },
      { name: 'b-c', params: ['f32', 'f64'], results: [] },
      { name: 'c', params: [], results: ['f64'] },
    ]);
    const result = expectAccepted(bytes, { memoryPagesMax: 0, exports: ['c', { wasm: 'b-c', as: 'bC' }, 'a'] });
    expect(result).toEqual({
      ok: true,
      value: {
        exports: [
          { wasm: 'c', as: 'c', params: [], results: ['f64'] },
          { wasm: 'b-c', as: 'bC', params: ['f32', 'f64'], results: [] },
          { wasm: 'a', as: 'a', params: ['i32'], results: ['i32'] },
        ],
        instantiation: { start: false, memoryPages: 0, tableElements: 0 },
      },
    });
  });

  it('accepts 8 parameters, a memory at the manifest bound, globals, a start function, data and custom sections', () => {
    const bytes = buildWasm({
      funcs: [
        { type: { params: new Array<BuilderValType>(8).fill('f64'), results: ['f64'] }, body: [op.local_get, 7] },
        { type: { params: [], results: [] }, body: [] },
      ],
      memories: [{ min: 1, max: 16 }],
      globals: [
        { type: 'i32', mutable: true, init: [op.i32_const, ...sleb(-5)] },
        { type: 'f64', init: [op.f64_const, ...f64Bytes(1.5)] },
      ],
      exports: [
        { name: 'last', kind: 'func', index: 0 },
        { name: 'memory', kind: 'memory', index: 0 },
        { name: 'g', kind: 'global', index: 0 },
      ],
      start: 1,
      data: [{ offset: 8, bytes: [1, 2, 3] }],
      customSections: [{ name: 'name', bytes: [0, 1, 2] }],
    });
    const accepted = expectAccepted(bytes, { memoryPagesMax: 16, exports: ['last'] });
    expect(accepted.ok && accepted.value.instantiation).toEqual({ start: true, memoryPages: 1, tableElements: 0 });
    // A start function runs code at instantiation: no instance of it may be made ahead of a call.
    expect(accepted.ok && instantiatesQuietly(accepted.value.instantiation)).toBe(false);
  });

  it('says when a module instantiates quietly (no start function, a small allocation)', () => {
    const quiet = (memories: { min: number; max: number }[], tables: { min: number; max: number }[] = []) => {
      const bytes = buildWasm({ funcs: [{ type: { params: [], results: [] }, body: [] }], memories, tables, exports: [{ name: 'f', kind: 'func', index: 0 }] });
      const accepted = expectAccepted(bytes, { memoryPagesMax: 64, exports: ['f'] });
      return accepted.ok && instantiatesQuietly(accepted.value.instantiation);
    };
    expect(quiet([])).toBe(true);
    expect(quiet([{ min: 16, max: 64 }])).toBe(true);
    expect(quiet([{ min: 17, max: 64 }])).toBe(false);
    expect(quiet([], [{ min: 10_000, max: 10_000 }])).toBe(true);
    expect(quiet([], [{ min: 10_001, max: 20_000 }])).toBe(false);
  });

  it('ignores undeclared exports that break the signature rules', () => {
    const bytes = buildExportsModule([
      { name: 'ok', params: ['i32'], results: ['i32'] },
      { name: 'wide', params: ['i64'], results: ['i64'] },
    ]);
    expectAccepted(bytes, { memoryPagesMax: 0, exports: ['ok'] });
  });
});

describe('validateWasmBinary: rejections', () => {
  it('rejects garbage, bad magic and bad version', () => {
    expectFail(new Uint8Array([1, 2, 3]), { memoryPagesMax: 1, exports: ['x'] }, 'wasm-invalid', 'the file does not start with the WebAssembly magic bytes');
    expectFail(new Uint8Array([0, 0x61, 0x73]), { memoryPagesMax: 1, exports: ['x'] }, 'wasm-invalid', 'the header ends early (truncated)');
    expectFail(new Uint8Array([0, 0x61, 0x73, 0x6d, 2, 0, 0, 0]), { memoryPagesMax: 1, exports: ['x'] }, 'wasm-invalid', 'the file is not WebAssembly binary format version 1');
  });

  it('rejects a truncated binary at every cut point', () => {
    for (let cut = 1; cut < add.length; cut++) {
      const result = validateWasmBinary(add.subarray(0, cut), { memoryPagesMax: 2, exports: ['add'] });
      expect(result.ok, `cut at ${cut}`).toBe(false);
      if (result.ok) continue;
      // A cut exactly at a section boundary can leave a valid smaller module (no export yet):
      // then the engine must agree that it is valid; everywhere else the cut is malformed.
      if (result.code === 'wasm-export-missing') expect(WebAssembly.validate(add.subarray(0, cut)), `cut at ${cut}`).toBe(true);
      else expect(result.code, `cut at ${cut}`).toBe('wasm-invalid');
    }
  });

  it('rejects an over-long LEB128 and trailing bytes inside a section', () => {
    // A type section whose size is written as a 6-byte LEB128.
    const overlong = Uint8Array.from([0, 0x61, 0x73, 0x6d, 1, 0, 0, 0, 1, 0x81, 0x80, 0x80, 0x80, 0x80, 0x00, 0]);
    expectFail(overlong, { memoryPagesMax: 1, exports: ['x'] }, 'wasm-invalid', 'a section header has an over-long or out-of-range LEB128 integer');
    const trailing = buildWasm({ rawSections: [{ id: 1, content: [0, 0xff] }] });
    expectFail(trailing, { memoryPagesMax: 1, exports: ['x'] }, 'wasm-invalid', 'the type section has 1 unexpected trailing bytes');
  });

  it('rejects duplicated, out-of-order and unknown sections', () => {
    const dup = buildWasm({ types: [{ params: [], results: [] }], rawSections: [{ id: 1, content: [0] }] });
    expectFail(dup, { memoryPagesMax: 1, exports: ['x'] }, 'wasm-invalid', 'the type section is duplicated or out of order');
    const unknown = buildWasm({ rawSections: [{ id: 99, content: [] }] });
    expectFail(unknown, { memoryPagesMax: 1, exports: ['x'] }, 'wasm-invalid', 'the file has an unknown section id 99');
  });

  it('rejects non-function type forms as unsupported', () => {
    const gc = buildWasm({ rawSections: [{ id: 1, content: [1, 0x5f, 0] }] });
    expectFail(gc, { memoryPagesMax: 1, exports: ['x'] }, 'wasm-unsupported', 'type 0 is not a function type (form 0x5f); v1 supports function types only');
  });

  it.each([
    ['func', { module: 'env', name: 'log', kind: 'func', type: { params: ['i32'], results: [] } }, 'function "env"."log"'],
    ['memory', { module: 'env', name: 'memory', kind: 'memory', limits: { min: 1, max: 1 } }, 'memory "env"."memory"'],
    ['table', { module: 'env', name: 't', kind: 'table', limits: { min: 1 } }, 'table "env"."t"'],
    ['global', { module: 'env', name: 'g', kind: 'global', type: 'i32' }, 'global "env"."g"'],
  ] as const)('rejects an import of a %s', (_kind, imp, what) => {
    const bytes = buildExportsModule([{ name: 'f', params: [], results: [] }], { imports: [imp] });
    expectFail(bytes, { memoryPagesMax: 1, exports: ['f'] }, 'wasm-imports', `the module imports ${what}; v1 WASM modules may import nothing`);
  });

  it('counts further imports in the message', () => {
    const bytes = buildWasm({
      imports: [
        { module: 'wasi_snapshot_preview1', name: 'fd_write', kind: 'func', type: { params: [], results: [] } },
        { module: 'env', name: 'abort', kind: 'func', type: { params: [], results: [] } },
      ],
    });
    expectFail(bytes, { memoryPagesMax: 1, exports: ['x'] }, 'wasm-imports', 'the module imports function "wasi_snapshot_preview1"."fd_write" and 1 more; v1 WASM modules may import nothing');
  });

  it('enforces the memory rules', () => {
    const entry = { memoryPagesMax: 16, exports: ['add'] };
    const withMemory = (m: Parameters<typeof buildWasm>[0]['memories']) =>
      buildExportsModule([{ name: 'add', params: [], results: [] }], { memories: m ?? [] });
    expectFail(withMemory([{ min: 1 }]), entry, 'wasm-memory-unbounded', 'memory 0 declares no maximum; every memory must declare one (at most 16 pages)');
    expectFail(
      withMemory([{ min: 1, max: 17 }]),
      entry,
      'wasm-memory-too-large',
      "memory 0 declares a maximum of 17 pages; the manifest's memoryPagesMax is 16 and the host ceiling is 4096",
    );
    expectFail(
      withMemory([{ min: 1, max: 4097 }]),
      { memoryPagesMax: 5000, exports: ['add'] },
      'wasm-memory-too-large',
      "memory 0 declares a maximum of 4097 pages; the manifest's memoryPagesMax is 5000 and the host ceiling is 4096",
    );
    expectFail(withMemory([{ min: 1, max: 2, shared: true }]), entry, 'wasm-memory-shared', 'memory 0 is shared; v1 does not allow shared memory');
    expectFail(withMemory([{ min: 1, max: 2, memory64: true }]), entry, 'wasm-unsupported', 'memory 0 uses 64-bit addressing (memory64), which v1 does not allow');
    expectFail(withMemory([{ min: 3, max: 2 }]), entry, 'wasm-invalid', 'memory 0 has a maximum (2) below its minimum (3)');
    // A second memory (multi-memory) is held to the same rules.
    expectFail(withMemory([{ min: 1, max: 2 }, { min: 0 }]), entry, 'wasm-memory-unbounded', 'memory 1 declares no maximum; every memory must declare one (at most 16 pages)');
    // memoryPagesMax 0 allows only a memory of maximum 0.
    expectAccepted(withMemory([{ min: 0, max: 0 }]), { memoryPagesMax: 0, exports: ['add'] });
  });

  it('rejects missing and non-function exports', () => {
    expectFail(add, { memoryPagesMax: 2, exports: ['sub'] }, 'wasm-export-missing', 'the binary has no export named `sub`');
    const memExport = buildWasm({ memories: [{ min: 1, max: 1 }], exports: [{ name: 'mem', kind: 'memory', index: 0 }] });
    expectFail(memExport, { memoryPagesMax: 1, exports: ['mem'] }, 'wasm-export-not-function', 'export `mem` is a memory, not a function');
    const globalExport = buildWasm({ globals: [{ type: 'i32', init: [op.i32_const, 0] }], exports: [{ name: 'g', kind: 'global', index: 0 }] });
    expectFail(globalExport, { memoryPagesMax: 1, exports: ['g'] }, 'wasm-export-not-function', 'export `g` is a global, not a function');
  });

  it.each([
    [{ params: ['i64'], results: ['i32'] }, 'export `hash` takes i64'],
    [{ params: ['i32'], results: ['i64'] }, 'export `hash` returns i64'],
    [{ params: ['v128'], results: [] }, 'export `hash` takes v128'],
    [{ params: ['externref'], results: [] }, 'export `hash` takes externref'],
    [{ params: [], results: ['funcref'] }, 'export `hash` returns funcref'],
    [{ params: new Array(9).fill('i32'), results: [] }, 'export `hash` takes 9 parameters (at most 8)'],
    [{ params: [], results: ['i32', 'i32'] }, 'export `hash` returns 2 values (at most 1)'],
  ] as const)('rejects the signature %j', (sig, message) => {
    const bytes = buildExportsModule([{ name: 'hash', params: [...sig.params] as BuilderValType[], results: [...sig.results] as BuilderValType[] }]);
    expectFail(bytes, { memoryPagesMax: 0, exports: ['hash'] }, 'wasm-export-signature', message);
  });

  it('checks manifest export names', () => {
    const bytes = buildExportsModule([{ name: 'foo-bar', params: [], results: [] }, { name: 'then', params: [], results: [] }]);
    expectFail(
      bytes,
      { memoryPagesMax: 0, exports: ['foo-bar'] },
      'wasm-export-name-invalid',
      'export name "foo-bar" is not a valid, non-reserved JavaScript identifier; map it with { "wasm": "foo-bar", "as": "someName" }',
    );
    expectAccepted(bytes, { memoryPagesMax: 0, exports: [{ wasm: 'foo-bar', as: 'fooBar' }] });
    expectFail(bytes, { memoryPagesMax: 0, exports: [{ wasm: 'foo-bar', as: 'class' }] }, 'wasm-export-name-invalid', 'export name "class" is not a valid, non-reserved JavaScript identifier');
    expectFail(
      bytes,
      { memoryPagesMax: 0, exports: ['then'] },
      'wasm-export-name-invalid',
      'export name "then" is not a valid, non-reserved JavaScript identifier; map it with { "wasm": "then", "as": "someName" }',
    );
    expectFail(
      bytes,
      { memoryPagesMax: 0, exports: [{ wasm: 'foo-bar', as: 'x' }, { wasm: 'then', as: 'x' }] },
      'wasm-export-name-invalid',
      'the manifest declares the export name `x` twice',
    );
  });

  it('names reserved and invalid identifiers', () => {
    for (const name of ['await', 'yield', 'let', 'eval', 'arguments', '__proto__', '1a', 'a-b', 'ünï', '']) expect(isGuestExportName(name), name).toBe(false);
    for (const name of ['a', '_x', '$', 'fooBar9', 'haversineRad']) expect(isGuestExportName(name), name).toBe(true);
  });

  it('rejects structural inconsistencies the engine would also reject', () => {
    const noBodies = buildWasm({ funcs: [{ type: { params: [], results: [] }, body: [] }] }).slice();
    // Drop the code section (last section: id 10) to leave a function without a body.
    const codeAt = noBodies.lastIndexOf(10, noBodies.length - 4);
    expectFail(noBodies.subarray(0, codeAt), { memoryPagesMax: 0, exports: ['x'] }, 'wasm-invalid', 'the module declares 1 functions but has 0 function bodies');
    const badIndex = buildWasm({ funcs: [{ type: { params: [], results: [] }, body: [] }], exports: [{ name: 'f', kind: 'func', index: 3 }] });
    expectFail(badIndex, { memoryPagesMax: 0, exports: ['f'] }, 'wasm-invalid', 'export "f" refers to function 3, which does not exist');
    const dupExport = buildWasm({
      funcs: [{ type: { params: [], results: [] }, body: [] }],
      exports: [
        { name: 'f', kind: 'func', index: 0 },
        { name: 'f', kind: 'func', index: 0 },
      ],
    });
    expectFail(dupExport, { memoryPagesMax: 0, exports: ['f'] }, 'wasm-invalid', 'export "f" appears twice');
    const badUtf8 = buildWasm({ rawSections: [{ id: 0, content: [...uleb(2), 0xc3, 0x28] }] });
    expectFail(badUtf8, { memoryPagesMax: 0, exports: ['f'] }, 'wasm-invalid', 'the custom section has a name that is not valid UTF-8');
  });

  it('rejects binaries over the 4 MB limit before parsing', () => {
    expectFail(new Uint8Array(4 * 1024 * 1024 + 1), { memoryPagesMax: 0, exports: ['f'] }, 'file-too-large', 'the WASM binary is 4194305 bytes; the limit is 4194304');
  });
});

/** A WAT module's bytes, in a buffer of their own (as expectAccepted takes them). */
const watBytes = (text: string) => wat(text).slice();

describe('validateWasmBinary: typed declarations (bytes and strings, the canonical ABI)', () => {
  const REALLOC = '(func (export "cabi_realloc") (param i32 i32 i32 i32) (result i32) (i32.const 1024))';
  const MEMORY = '(memory (export "memory") 1 1)';
  /** echo(bytes) -> bytes, length(bytes) -> i32 and zeros(i32) -> bytes, with whatever else `parts` add. */
  const module = (...parts: string[]) =>
    watBytes(`(module
 ${parts.join('\n ')}
 (func (export "echo") (param i32 i32) (result i32) (i32.const 16))
 (func (export "length") (param i32 i32) (result i32) (local.get 1))
 (func (export "zeros") (param i32) (result i32) (i32.const 16)))`);
  const echo = { wasm: 'echo', as: 'echo', params: ['bytes'], result: 'bytes' };
  const entry = (...exports: Parameters<typeof validateWasmBinary>[1]['exports']) => ({ memoryPagesMax: 1, exports });
  const typeError = (message: string) => ['wasm-export-signature', message] as const;

  it('accepts a byte module with memory and cabi_realloc, and records cabi_post_ when it is exported', () => {
    const result = expectAccepted(module(MEMORY, REALLOC, '(func (export "cabi_post_echo") (param i32))'), entry(echo, { wasm: 'length', as: 'size', params: ['bytes'], result: 'i32' }));
    expect(result.ok && result.value.exports).toEqual([
      { wasm: 'echo', as: 'echo', params: ['bytes'], results: ['bytes'], post: 'cabi_post_echo' },
      { wasm: 'length', as: 'size', params: ['bytes'], results: ['i32'] },
    ]);
  });

  it('needs an exported memory, and names the export that needs it', () => {
    expectFail(module(REALLOC), entry(echo), 'wasm-export-missing', 'the binary exports no `memory`, which `echo` needs to take or return bytes or strings (the canonical ABI)');
    // A memory the module keeps to itself is no memory the host can copy into.
    expectFail(module('(memory 1 1)', REALLOC), entry({ ...echo, as: 'copy' }), 'wasm-export-missing', 'the binary exports no `memory`, which `copy` needs to take or return bytes or strings (the canonical ABI)');
  });

  it('needs `memory` to be a memory (WAT can export a global or a function by that name)', () => {
    const why = 'which `echo` needs to take or return bytes or strings (the canonical ABI)';
    expectFail(module('(global (export "memory") i32 (i32.const 0))', REALLOC), entry(echo), 'wasm-export-missing', `the binary's \`memory\` export is a global, not a memory, ${why}`);
    expectFail(module('(func (export "memory"))', REALLOC), entry(echo), 'wasm-export-missing', `the binary's \`memory\` export is a function, not a memory, ${why}`);
  });

  it('needs cabi_realloc, and says what it must be', () => {
    expectFail(
      module(MEMORY),
      entry(echo),
      'wasm-export-missing',
      'the binary has no export named `cabi_realloc`, which `echo` needs to take or return bytes or strings (the canonical ABI): cabi_realloc(old_ptr, old_size, align, new_size) -> ptr',
    );
    // Byte results need it too (the canonical ABI's contract; this module happens not to call it).
    expect(validateWasmBinary(module(MEMORY), entry({ wasm: 'zeros', as: 'zeros', params: ['i32'], result: 'bytes' }))).toMatchObject({ ok: false, code: 'wasm-export-missing' });
  });

  it.each([
    ['three parameters', '(func (export "cabi_realloc") (param i32 i32 i32) (result i32) (i32.const 0))'],
    ['no result', '(func (export "cabi_realloc") (param i32 i32 i32 i32))'],
    ['i64 parameters', '(func (export "cabi_realloc") (param i64 i32 i32 i32) (result i32) (i32.const 0))'],
    ['a global', '(global (export "cabi_realloc") i32 (i32.const 0))'],
  ])('rejects a cabi_realloc with %s', (_what, realloc) => {
    expectFail(module(MEMORY, realloc), entry(echo), ...typeError('`cabi_realloc` must be a function (i32, i32, i32, i32) → i32 (old_ptr, old_size, align, new_size → ptr)'));
  });

  it('checks cabi_post_<name> against the export’s core result', () => {
    const after = (name: string) => `(it is called with \`${name}\`'s result after the host read it)`;
    expectFail(module(MEMORY, REALLOC, '(func (export "cabi_post_echo") (param i32) (result i32) (i32.const 0))'), entry(echo), ...typeError(`\`cabi_post_echo\` must be a function (i32) → nothing ${after('echo')}`));
    expectFail(module(MEMORY, REALLOC, '(func (export "cabi_post_echo"))'), entry(echo), ...typeError(`\`cabi_post_echo\` must be a function (i32) → nothing ${after('echo')}`));
    expectFail(module(MEMORY, REALLOC, '(global (export "cabi_post_echo") i32 (i32.const 0))'), entry(echo), ...typeError(`\`cabi_post_echo\` must be a function (i32) → nothing ${after('echo')}`));
    // Named by the binary's export: the guest's name is not what the module exports.
    expectFail(
      module(MEMORY, REALLOC, '(func (export "cabi_post_length") (param f64))'),
      entry({ wasm: 'length', as: 'size', params: ['bytes'], result: 'i32' }),
      ...typeError(`\`cabi_post_length\` must be a function (i32) → nothing ${after('length')}`),
    );
  });

  it('refuses a type that is not one', () => {
    const choices = 'i32, f32, f64, bytes, string';
    expectFail(module(MEMORY, REALLOC), entry({ ...echo, params: ['u8'] }), ...typeError(`export \`echo\` declares parameter 1 as "u8", which is not a type (${choices})`));
    expectFail(module(MEMORY, REALLOC), entry({ ...echo, params: ['i32', 'Uint8Array'] }), ...typeError(`export \`echo\` declares parameter 2 as "Uint8Array", which is not a type (${choices})`));
    expectFail(module(MEMORY, REALLOC), entry({ ...echo, params: ['i64'] }), ...typeError(`export \`echo\` declares parameter 1 as "i64", which is not a type (${choices})`));
    expectFail(
      module(MEMORY, REALLOC),
      entry({ ...echo, result: 'buffer' }),
      ...typeError(`export \`echo\` declares its result as "buffer", which is not a type (${choices}; leave "result" out for none)`),
    );
    expectFail(module(MEMORY, REALLOC), entry({ ...echo, result: '' }), ...typeError(`export \`echo\` declares its result as "", which is not a type (${choices}; leave "result" out for none)`));
  });

  it('refuses a result without "params"', () => {
    expectFail(
      module(MEMORY, REALLOC),
      entry({ wasm: 'zeros', as: 'zeros', result: 'bytes' }),
      ...typeError('export `zeros` declares a result but no "params"; declare both (use "params": [] for none)'),
    );
  });

  it('counts a bytes or string parameter as two words: at most 8', () => {
    // Judged before the binary is read: a mistake in the manifest is named as such.
    const fiveBytes = { wasm: 'many', as: 'many', params: ['bytes', 'bytes', 'bytes', 'bytes', 'bytes'] };
    const words = (n: number) => `export \`many\` declares ${n} parameter words (a bytes or string parameter counts as two: pointer and length); at most 8`;
    expectFail(module(MEMORY, REALLOC), entry(fiveBytes), ...typeError(words(10)));
    expectFail(module(MEMORY, REALLOC), entry({ ...fiveBytes, params: ['string', 'i32', 'i32', 'i32', 'i32', 'i32', 'i32', 'i32'] }), ...typeError(words(9)));
    const eight = watBytes(`(module ${MEMORY} ${REALLOC} (func (export "many") (param i32 i32 i32 i32 i32 i32 i32 i32)))`);
    expectAccepted(eight, entry({ ...fiveBytes, params: ['bytes', 'string', 'bytes', 'bytes'] }));
    expectAccepted(eight, entry({ ...fiveBytes, params: ['bytes', 'i32', 'i32', 'string', 'i32', 'i32'] }));
  });

  it('refuses a declaration the binary’s signature does not lower to, naming both', () => {
    // A scalar result declared for a function that returns another scalar.
    expectFail(
      module(MEMORY, REALLOC),
      entry({ wasm: 'length', as: 'length', params: ['bytes'], result: 'f64' }),
      ...typeError("export `length` is declared (bytes) → f64, which the canonical ABI lowers to (i32, i32) → f64, but the binary's `length` is (i32, i32) → i32"),
    );
    // Bytes declared for a function taking one i32.
    expectFail(
      module(MEMORY, REALLOC),
      entry({ wasm: 'zeros', as: 'makeZeros', params: ['bytes'], result: 'bytes' }),
      ...typeError("export `makeZeros` is declared (bytes) → bytes, which the canonical ABI lowers to (i32, i32) → i32, but the binary's `zeros` is (i32) → i32"),
    );
    // A void declaration for a function with a result, and a scalar declaration with no lowering.
    expectFail(
      module(MEMORY, REALLOC),
      entry({ wasm: 'echo', as: 'echo', params: ['string'] }),
      ...typeError("export `echo` is declared (string) → nothing, which the canonical ABI lowers to (i32, i32) → nothing, but the binary's `echo` is (i32, i32) → i32"),
    );
    expectFail(module(MEMORY, REALLOC), entry({ wasm: 'zeros', as: 'zeros', params: ['f32'], result: 'i32' }), ...typeError("export `zeros` is declared (f32) → i32 but the binary's `zeros` is (i32) → i32"));
  });

  it('lets a scalar-only typed declaration go without memory or cabi_realloc', () => {
    const scalar = watBytes('(module (func (export "add") (param i32) (result i32) (local.get 0)) (func (export "half") (param f64) (result f64) (f64.mul (local.get 0) (f64.const 0.5))))');
    const result = expectAccepted(scalar, {
      memoryPagesMax: 0,
      exports: [
        { wasm: 'add', as: 'add', params: ['i32'], result: 'i32' },
        { wasm: 'half', as: 'half', params: ['f64'], result: 'f64' },
      ],
    });
    expect(result.ok && result.value.exports).toEqual([
      { wasm: 'add', as: 'add', params: ['i32'], results: ['i32'] },
      { wasm: 'half', as: 'half', params: ['f64'], results: ['f64'] },
    ]);
  });
});

describe('cross-check against the engine', () => {
  const accepted: [string, Uint8Array<ArrayBuffer>, string[]][] = [
    ['add with memory', add, ['add']],
    [
      'mixed scalars, globals, start',
      buildWasm({
        funcs: [
          { type: { params: ['f32', 'f64', 'i32'], results: ['f64'] }, body: [op.local_get, 1] },
          { type: { params: [], results: [] }, body: [op.i32_const, 1, op.global_set, 0] },
          { type: { params: ['i64'], results: [] }, body: [] },
        ],
        memories: [{ min: 0, max: 4 }],
        tables: [{ min: 1, max: 1 }],
        globals: [{ type: 'i32', mutable: true, init: [op.i32_const, 0] }],
        exports: [
          { name: 'mix', kind: 'func', index: 0 },
          { name: 'init', kind: 'func', index: 1 },
          { name: 'wide', kind: 'func', index: 2 },
          { name: 'mem', kind: 'memory', index: 0 },
          { name: 'tab', kind: 'table', index: 0 },
          { name: 'g', kind: 'global', index: 0 },
        ],
        start: 1,
      }),
      ['mix', 'init'],
    ],
    ['void only', buildExportsModule([{ name: 'noop', params: [], results: [] }]), ['noop']],
  ];

  it.each(accepted)('%s compiles and its exports match WebAssembly.Module', (_label, bytes, declared) => {
    const result = validateWasmBinary(bytes, { memoryPagesMax: 4, exports: declared });
    expect(result.ok).toBe(true);
    const module = new WebAssembly.Module(bytes);
    expect(WebAssembly.Module.imports(module)).toEqual([]);
    const engineExports = new Map(WebAssembly.Module.exports(module).map((e) => [e.name, e.kind]));
    if (!result.ok) return;
    for (const sig of result.value.exports) expect(engineExports.get(sig.wasm)).toBe('function');
    // Arity as the engine sees it: the instance's function length is its parameter count.
    const instance = new WebAssembly.Instance(module, {});
    for (const sig of result.value.exports) {
      expect((instance.exports[sig.wasm] as (...a: unknown[]) => unknown).length).toBe(sig.params.length);
    }
  });

  it('every binary rejected for imports is one the engine would need imports for', () => {
    const bytes = buildExportsModule([{ name: 'f', params: [], results: [] }], {
      imports: [{ module: 'env', name: 'memory', kind: 'memory', limits: { min: 1, max: 1 } }],
    });
    expect(WebAssembly.Module.imports(new WebAssembly.Module(bytes))).toEqual([{ module: 'env', name: 'memory', kind: 'memory' }]);
    expect(validateWasmBinary(bytes, { memoryPagesMax: 1, exports: ['f'] }).ok).toBe(false);
  });
});

describe('mutation cross-check', () => {
  // Deterministic byte mutations of a valid binary. The security property: whenever both the
  // validator and the engine accept a mutant, the engine sees no imports and every declared
  // export is a function with the signature the validator reported.
  it('never accepts a mutant that the engine reads differently', () => {
    const base = buildWasm({
      funcs: [
        { type: { params: ['i32', 'f64'], results: ['f64'] }, body: [op.local_get, 1] },
        { type: { params: [], results: [] }, body: [] },
      ],
      memories: [{ min: 1, max: 2 }],
      globals: [{ type: 'i32', mutable: true, init: [op.i32_const, 7] }],
      exports: [
        { name: 'f', kind: 'func', index: 0 },
        { name: 'g', kind: 'func', index: 1 },
      ],
    });
    let seed = 0x2545f491;
    const rand = () => {
      seed ^= seed << 13;
      seed ^= seed >>> 17;
      seed ^= seed << 5;
      return (seed >>> 0) / 0x1_0000_0000;
    };
    let bothAccepted = 0;
    for (let i = 0; i < 3000; i++) {
      const mutant = base.slice();
      const flips = 1 + Math.floor(rand() * 3);
      for (let j = 0; j < flips; j++) mutant[8 + Math.floor(rand() * (mutant.length - 8))] = Math.floor(rand() * 256);
      const result = validateWasmBinary(mutant, { memoryPagesMax: 2, exports: ['f'] });
      if (!result.ok || !WebAssembly.validate(mutant)) continue;
      bothAccepted++;
      const module = new WebAssembly.Module(mutant);
      expect(WebAssembly.Module.imports(module)).toEqual([]);
      const instance = new WebAssembly.Instance(module, {});
      const fn = instance.exports.f;
      expect(typeof fn).toBe('function');
      expect((fn as (...a: unknown[]) => unknown).length).toBe(result.value.exports[0]?.params.length);
      for (const exp of WebAssembly.Module.exports(module)) {
        if (exp.kind !== 'memory') continue;
        const memory = instance.exports[exp.name] as WebAssembly.Memory;
        expect(() => memory.grow(3)).toThrow(RangeError);
      }
    }
    expect(bothAccepted).toBeGreaterThan(10);
  });
});
