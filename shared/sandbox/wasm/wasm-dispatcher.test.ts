// The dispatcher's checks and budgets, driven through a small in-process pool port that runs the
// real engine (instance per call, like the worker pool) so calls really execute. The worker pool
// itself, with timeouts, is tested with the dispatcher in electron/runtime/wasm/.

import { describe, expect, it } from 'vitest';
import type { ExecutableModule, SandboxModuleResolutionOk, WasmExportSignature } from '../../protocol/catalog.ts';
import type { WasmBudgets } from '../../protocol/manifest.ts';
import { buildWasm, op } from '../../testing/wasm-builder.ts';
import { wat } from '../../testing/wat.ts';
import { validateWasmBinary } from '../../packs/wasm-binary.ts';
import { createWasmDispatcher, effectiveBudgets, NO_FREE_LANE, type WasmPoolPort, type WasmPoolReply, type WasmPoolRequest } from './wasm-dispatcher.ts';
import { failureCode, invokeExport } from './canonical-abi.mjs';

const bytes = buildWasm({
  funcs: [
    { type: { params: ['i32', 'i32'], results: ['i32'] }, body: [op.local_get, 0, op.local_get, 1, op.i32_add] },
    { type: { params: ['f64'], results: [] }, body: [] },
    // burn(n): count down from n — real work whose time the budget sees.
    {
      type: { params: ['i32'], results: ['i32'] },
      body: [op.loop, op.blocktype_empty, op.local_get, 0, op.i32_const, 1, op.i32_sub, op.local_tee, 0, op.br_if, 0, op.end, op.local_get, 0],
    },
    { type: { params: [], results: [] }, body: [op.unreachable] },
  ],
  exports: [
    { name: 'add', kind: 'func', index: 0 },
    { name: 'sink-f64', kind: 'func', index: 1 },
    { name: 'burn', kind: 'func', index: 2 },
    { name: 'crash', kind: 'func', index: 3 },
    { name: 'hidden', kind: 'func', index: 0 },
  ],
});

function signatures(declared: Parameters<typeof validateWasmBinary>[1]['exports']): WasmExportSignature[] {
  const result = validateWasmBinary(bytes, { memoryPagesMax: 0, exports: declared });
  if (!result.ok) throw new Error(result.message);
  return result.value.exports;
}

function wasmModule(moduleId: string, budgets: WasmBudgets = {}): ExecutableModule {
  return {
    moduleId,
    kind: 'wasm',
    packName: '@acme/math',
    packVersion: '1.0.0',
    specifier: `@acme/math/${moduleId}`,
    displayName: `@acme/math/${moduleId}`,
    source: '',
    imports: {},
    digest: '0'.repeat(64),
    wasm: { bytes, exports: signatures(['add', { wasm: 'sink-f64', as: 'sink' }, 'burn', 'crash']), memoryPagesMax: 0, budgets },
  };
}

function resolution(...mods: ExecutableModule[]): Pick<SandboxModuleResolutionOk, 'modules'> {
  const jsModule: ExecutableModule = { ...wasmModule('js'), kind: 'js', wasm: undefined };
  return { modules: Object.fromEntries([...mods, jsModule].map((m) => [m.moduleId, m])) };
}

/** One call on a fresh instance of the real engine, through the workers' own lowering. */
function runInline(request: WasmPoolRequest): WasmPoolReply {
  const start = performance.now();
  try {
    const instance = new WebAssembly.Instance(new WebAssembly.Module(request.bytes.slice()), {});
    const value = invokeExport(instance, request.exportName, request.args, request.abi);
    return { ok: true as const, value, runMs: performance.now() - start };
  } catch (error) {
    return { ok: false as const, code: failureCode(error), message: (error as Error).message, runMs: performance.now() - start };
  }
}

/** In-process pool port: a fresh instance per call on the real engine, after a macrotask, through the workers' own lowering. */
class InlinePort implements WasmPoolPort {
  requests: WasmPoolRequest[] = [];
  async call(request: WasmPoolRequest) {
    this.requests.push(request);
    await new Promise((r) => setTimeout(r, 1));
    return runInline(request);
  }
}

/** The same, answering at once too (`callNow`), or with NO_FREE_LANE while `free` is false (nothing is run then). */
class NowPort extends InlinePort {
  free = true;
  callNow(request: WasmPoolRequest): WasmPoolReply | typeof NO_FREE_LANE {
    this.requests.push(request);
    return this.free ? runInline(request) : NO_FREE_LANE;
  }
}

describe('createWasmDispatcher', () => {
  it('calls a declared export by its `as` name with checked arguments', async () => {
    const port = new InlinePort();
    const d = createWasmDispatcher(resolution(wasmModule('m')), port);
    expect(await d.bridge('m', 'add', [2, 3])).toEqual({ ok: true, value: 5 });
    expect(await d.bridge('m', 'sink', [Number.NaN])).toEqual({ ok: true, value: undefined });
    expect(port.requests.map((r) => [r.exportName, r.args, r.timeoutMs])).toEqual([
      ['add', [2, 3], 5000],
      ['sink-f64', [Number.NaN], 5000],
    ]);
    expect(d.usage()).toMatchObject({ calls: 2, inFlight: 0 });
  });

  it('serves only the run’s WASM modules and their declared exports', async () => {
    const port = new InlinePort();
    const d = createWasmDispatcher(resolution(wasmModule('m')), port);
    const notDeclared = (message: string) => ({ ok: false, code: 'wasm-not-declared', message });
    expect(await d.bridge('other', 'add', [1, 2])).toEqual(notDeclared('that WASM module is not declared for this run'));
    expect(await d.bridge('js', 'add', [1, 2])).toEqual(notDeclared('that WASM module is not declared for this run'));
    expect(await d.bridge({ toString: () => 'm' }, 'add', [1, 2])).toEqual(notDeclared('that WASM module is not declared for this run'));
    expect(await d.bridge('m', 'hidden', [1, 2])).toEqual(notDeclared('`hidden` is not an export of `@acme/math/m`'));
    expect(await d.bridge('m', 'sink-f64', [1])).toEqual(notDeclared('`sink-f64` is not an export of `@acme/math/m`'));
    expect(await d.bridge('m', '__proto__', [])).toEqual(notDeclared('`__proto__` is not an export of `@acme/math/m`'));
    expect(await d.bridge('m', 'constructor', [])).toEqual(notDeclared('`constructor` is not an export of `@acme/math/m`'));
    expect(await d.bridge('m', 'x'.repeat(500), [])).toEqual(notDeclared('that export is not an export of `@acme/math/m`'));
    expect(port.requests).toEqual([]);
  });

  it('checks arguments before the pool sees the call, and such calls cost no budget', async () => {
    const port = new InlinePort();
    const d = createWasmDispatcher(resolution(wasmModule('m', { calls: 1 })), port);
    expect(await d.bridge('m', 'add', [2 ** 31, 1])).toEqual({
      ok: false,
      code: 'wasm-argument',
      message: '`add` argument 1 expects an i32 between -2147483648 and 2147483647, got 2147483648',
    });
    expect(await d.bridge('m', 'add', [1])).toEqual({ ok: false, code: 'wasm-argument', message: '`add` takes 2 arguments (i32, i32), got 1' });
    expect(port.requests).toEqual([]);
    expect(await d.bridge('m', 'add', [1, 1])).toEqual({ ok: true, value: 2 });
  });

  it('passes traps through as tagged results', async () => {
    const d = createWasmDispatcher(resolution(wasmModule('m')), new InlinePort());
    expect(await d.bridge('m', 'crash', [])).toEqual({ ok: false, code: 'wasm-trap', message: '`crash` trapped: unreachable' });
  });

  it('enforces the run-wide call budget (256 by default)', async () => {
    const d = createWasmDispatcher(resolution(wasmModule('m'), wasmModule('n')), new InlinePort());
    for (let i = 0; i < 256; i++) {
      const r = await d.bridge(i % 2 ? 'm' : 'n', 'add', [i, 1]);
      expect(r.ok).toBe(true);
    }
    expect(await d.bridge('m', 'add', [1, 1])).toEqual({
      ok: false,
      code: 'wasm-budget-calls',
      message: 'this run may make at most 256 WASM calls per run (budget: calls)',
    });
  });

  it('enforces a module’s lowered call budget without touching other modules', async () => {
    const d = createWasmDispatcher(resolution(wasmModule('m', { calls: 2 }), wasmModule('n')), new InlinePort());
    await d.bridge('m', 'add', [1, 1]);
    await d.bridge('m', 'add', [1, 1]);
    expect(await d.bridge('m', 'add', [1, 1])).toEqual({
      ok: false,
      code: 'wasm-budget-calls',
      message: '`@acme/math/m` may make at most 2 WASM calls per run (budget: calls)',
    });
    expect(await d.bridge('n', 'add', [1, 1])).toEqual({ ok: true, value: 2 });
  });

  it('enforces concurrency: the third call in flight is refused, and slots free up', async () => {
    const d = createWasmDispatcher(resolution(wasmModule('m')), new InlinePort());
    const [a, b, c] = [d.bridge('m', 'add', [1, 1]), d.bridge('m', 'add', [2, 2]), d.bridge('m', 'add', [3, 3])];
    expect(await c).toEqual({
      ok: false,
      code: 'wasm-budget-concurrency',
      message: 'this run may have at most 2 WASM calls in flight at once (budget: concurrency)',
    });
    expect([await a, await b]).toEqual([
      { ok: true, value: 2 },
      { ok: true, value: 4 },
    ]);
    expect(await d.bridge('m', 'add', [4, 4])).toEqual({ ok: true, value: 8 });
    const single = createWasmDispatcher(resolution(wasmModule('m', { concurrency: 1 })), new InlinePort());
    const first = single.bridge('m', 'add', [1, 1]);
    expect(await single.bridge('m', 'add', [1, 1])).toMatchObject({ ok: false, code: 'wasm-budget-concurrency' });
    await first;
  });

  it('charges WASM time and refuses calls once the aggregate budget is spent', async () => {
    const d = createWasmDispatcher(resolution(wasmModule('m', { aggregateMs: 20 })), new InlinePort());
    let calls = 0;
    let last;
    do {
      last = await d.bridge('m', 'burn', [2_000_000]);
      calls++;
    } while (last.ok && calls < 1000);
    expect(last).toEqual({ ok: false, code: 'wasm-budget-time', message: '`@acme/math/m` has used its 20 ms of WASM time for this run (budget: time)' });
    expect(d.usage().wasmMs).toBeGreaterThanOrEqual(20);
  });

  it('caps each call’s timeout by the time left in the budget', async () => {
    const port = new InlinePort();
    const d = createWasmDispatcher(resolution(wasmModule('m', { aggregateMs: 3000, callTimeoutMs: 2000 })), port);
    await d.bridge('m', 'add', [1, 1]);
    expect(port.requests[0]?.timeoutMs).toBe(2000);
    // Two calls in flight reserve their timeouts: the second gets only what the first left.
    const a = d.bridge('m', 'add', [1, 1]);
    const b = d.bridge('m', 'add', [1, 1]);
    await Promise.all([a, b]);
    const [, second, third] = port.requests.map((r) => r.timeoutMs);
    expect(second).toBe(2000);
    expect(third).toBeLessThanOrEqual(1000);
    expect(third).toBeGreaterThan(500); // 1000 minus the first call's run time, which load can stretch
  });

  it('never raises budgets above the host defaults', () => {
    const bytes = { callInputBytes: 16 * 2 ** 20, callOutputBytes: 16 * 2 ** 20, inputBytes: 64 * 2 ** 20, outputBytes: 64 * 2 ** 20 };
    expect(
      effectiveBudgets({ calls: 10_000, concurrency: 50, aggregateMs: 10 ** 9, callTimeoutMs: 10 ** 9, callInputBytes: 2 ** 40, outputBytes: 2 ** 40 }),
    ).toEqual({ callTimeoutMs: 5000, concurrency: 2, calls: 256, aggregateMs: 30_000, ...bytes });
    expect(effectiveBudgets({ calls: 3, callTimeoutMs: 50, callOutputBytes: 64 })).toEqual({
      callTimeoutMs: 50,
      concurrency: 2,
      calls: 3,
      aggregateMs: 30_000,
      ...bytes,
      callOutputBytes: 64,
    });
    expect(effectiveBudgets({ calls: 0, concurrency: Number.NaN })).toEqual({ callTimeoutMs: 5000, concurrency: 2, calls: 256, aggregateMs: 30_000, ...bytes });
  });

  it('refuses every call after close and aborts the ones in flight', async () => {
    const port = new InlinePort();
    const d = createWasmDispatcher(resolution(wasmModule('m')), port);
    const inFlight = d.bridge('m', 'add', [1, 1]);
    d.close();
    expect(port.requests[0]?.signal?.aborted).toBe(true);
    await inFlight;
    expect(await d.bridge('m', 'add', [1, 1])).toEqual({
      ok: false,
      code: 'wasm-not-declared',
      message: 'the run has ended; its WASM modules can no longer be called',
    });
  });

  it('turns a rejecting port into a tagged result', async () => {
    const d = createWasmDispatcher(resolution(wasmModule('m')), {
      call: () => Promise.reject(new Error('port bug')),
    });
    expect(await d.bridge('m', 'add', [1, 1])).toEqual({ ok: false, code: 'internal', message: 'the WASM pool failed: port bug' });
    expect(d.usage().inFlight).toBe(0);
  });
});

/**
 * A typed module (canonical ABI): a bump allocator, echo, zeros(n), a string that starts with a
 * byte order mark, and a misaligned return area. The binary's names differ from the guest's
 * (`as`), as toolchains' often do; every sentence must use the guest's.
 */
const typedBytes = wat(`(module
 (memory (export "memory") 1 16)
 (global $top (mut i32) (i32.const 1024))
 (func $alloc (export "cabi_realloc") (param i32 i32 i32) (param $size i32) (result i32)
  (local $p i32)
  (local.set $p (global.get $top))
  (global.set $top (i32.add (local.get $p) (local.get $size)))
  (local.get $p))
 (func $area (param $p i32) (param $n i32) (result i32)
  (i32.store (i32.const 16) (local.get $p)) (i32.store (i32.const 20) (local.get $n)) (i32.const 16))
 (func (export "echo_bytes") (param $p i32) (param $n i32) (result i32) (call $area (local.get $p) (local.get $n)))
 (func (export "make_zeros") (param $n i32) (result i32) (call $area (call $alloc (i32.const 0) (i32.const 0) (i32.const 1) (local.get $n)) (local.get $n)))
 (data (i32.const 512) "\\ef\\bb\\bfok")
 (func (export "bom_text") (result i32) (call $area (i32.const 512) (i32.const 5)))
 (func (export "bad_area") (result i32) (i32.const 2))
)`);

function typedModule(moduleId: string, budgets: WasmBudgets = {}): ExecutableModule {
  const validated = validateWasmBinary(typedBytes, {
    memoryPagesMax: 16,
    exports: [
      { wasm: 'echo_bytes', as: 'echo', params: ['bytes'], result: 'bytes' },
      { wasm: 'make_zeros', as: 'zeros', params: ['i32'], result: 'bytes' },
      { wasm: 'bom_text', as: 'bomText', params: [], result: 'string' },
      { wasm: 'bad_area', as: 'badArea', params: [], result: 'bytes' },
    ],
  });
  if (!validated.ok) throw new Error(validated.message);
  return { ...wasmModule(moduleId), wasm: { bytes: typedBytes, exports: validated.value.exports, memoryPagesMax: 16, budgets } };
}

describe('createWasmDispatcher: bytes and strings', () => {
  it('calls cabi_post_ after a typed export that takes and returns only scalars', async () => {
    // The post-return function traps, so a call that reached it says so.
    const postBytes = wat(`(module
 (memory (export "memory") 1 1)
 (func (export "cabi_realloc") (param i32 i32 i32 i32) (result i32) (i32.const 0))
 (func (export "twice") (param $x i32) (result i32) (i32.mul (local.get $x) (i32.const 2)))
 (func (export "cabi_post_twice") (param i32) unreachable)
 (func (export "plain") (param $x i32) (result i32) (local.get $x))
)`);
    const validated = validateWasmBinary(postBytes, {
      memoryPagesMax: 1,
      exports: [{ wasm: 'twice', as: 'twice', params: ['i32'], result: 'i32' }, 'plain'],
    });
    if (!validated.ok) throw new Error(validated.message);
    expect(validated.value.exports[0]?.post).toBe('cabi_post_twice');
    const mod: ExecutableModule = { ...wasmModule('p'), wasm: { bytes: postBytes, exports: validated.value.exports, memoryPagesMax: 1, budgets: {} } };
    const d = createWasmDispatcher(resolution(mod), new InlinePort());
    expect(await d.bridge('p', 'twice', [21])).toEqual({ ok: false, code: 'wasm-trap', message: '`twice` trapped: unreachable' });
    expect(await d.bridge('p', 'plain', [21])).toEqual({ ok: true, value: 21 });
  });

  it('names the export as the guest knows it in the lowering’s sentences, and keeps a leading byte order mark', async () => {
    const port = new InlinePort();
    const d = createWasmDispatcher(resolution(typedModule('t', { callOutputBytes: 5 })), port);
    expect(await d.bridge('t', 'echo', [new Uint8Array([1, 2])])).toEqual({ ok: true, value: new Uint8Array([1, 2]) });
    expect(port.requests[0]).toMatchObject({ exportName: 'echo_bytes', abi: { name: 'echo', params: ['bytes'], result: 'bytes', maxResultBytes: 5 } });
    expect(await d.bridge('t', 'zeros', [6])).toEqual({
      ok: false,
      code: 'wasm-budget-bytes',
      message: '`zeros` returned 6 bytes, more than the 5 bytes this call may return (budget: output bytes)',
    });
    expect(await d.bridge('t', 'badArea', [])).toEqual({
      ok: false,
      code: 'wasm-trap',
      message: '`badArea` trapped: `badArea` returned a return area at 2, which is not 4-byte aligned',
    });
    // EF BB BF is U+FEFF, a character of the string (the canonical ABI does no BOM sniffing).
    expect(await d.bridge('t', 'bomText', [])).toEqual({ ok: true, value: '\uFEFFok' });
  });

  it('holds each call’s output allowance while it is in flight: the second of two calls gets only what the first left of the run’s budget', async () => {
    const port = new InlinePort();
    const d = createWasmDispatcher(resolution(typedModule('t')), port, { budgets: { callOutputBytes: 16, outputBytes: 20 } });
    const first = d.bridge('t', 'zeros', [10]);
    const second = d.bridge('t', 'zeros', [10]);
    // Both calls are with the pool now: 16 are held for the first, so the second may return 4.
    expect(port.requests.map((r) => r.abi?.maxResultBytes)).toEqual([16, 4]);
    expect(await first).toEqual({ ok: true, value: new Uint8Array(10) });
    expect(await second).toEqual({
      ok: false,
      code: 'wasm-budget-bytes',
      message: '`zeros` returned 10 bytes, more than the 4 bytes this call may return (budget: output bytes)',
    });
    // Settled, the holds are gone and only what was returned counts: 10 used, 10 left.
    expect(await d.bridge('t', 'zeros', [10])).toEqual({ ok: true, value: new Uint8Array(10) });
    expect(port.requests.map((r) => r.abi?.maxResultBytes)).toEqual([16, 4, 10]);
    expect(await d.bridge('t', 'zeros', [1])).toEqual({
      ok: false,
      code: 'wasm-budget-bytes',
      message: '`zeros` returned 1 bytes, more than the 0 bytes this call may return (budget: output bytes)',
    });
    expect(await d.bridge('t', 'zeros', [0])).toEqual({ ok: true, value: new Uint8Array(0) });
    expect(d.usage()).toMatchObject({ calls: 5, inFlight: 0 });
  });

  it('gives a call back whole when no lane could take it at once (callNow: NO_FREE_LANE): its input bytes, output hold and call are not counted', () => {
    const port = new NowPort();
    const d = createWasmDispatcher(resolution(typedModule('t')), port, { budgets: { inputBytes: 20, callOutputBytes: 16, outputBytes: 20 } });
    const callNow = d.callNow!;
    const fifteen = new Uint8Array(15).fill(7);
    port.free = false;
    expect(callNow('t', 'echo', [fifteen], 100, false)).toBe(NO_FREE_LANE);
    expect(callNow('t', 'echo', [fifteen], 100, false)).toBe(NO_FREE_LANE);
    expect(d.usage()).toMatchObject({ calls: 0, inFlight: 0 });
    port.free = true;
    // Had the two given-back calls counted, 30 of the run's 20 input bytes would be used.
    expect(callNow('t', 'echo', [fifteen], 100, false)).toEqual({ ok: true, value: fifteen });
    // An answered call counts (the budget is the run's, and the refusal says so).
    expect(callNow('t', 'echo', [fifteen], 100, false)).toEqual({
      ok: false,
      code: 'wasm-budget-bytes',
      message: 'this run may pass at most 20 bytes into WASM per run; 15 are used and this call passes 15 (budget: input bytes)',
    });
    expect(callNow('t', 'echo', [new Uint8Array(5)], 100, false)).toEqual({ ok: true, value: new Uint8Array(5) });
    // Each call posted held the same output allowance: the given-back calls held nothing after.
    expect(port.requests.map((r) => r.abi?.maxResultBytes)).toEqual([16, 16, 16, 5]);
    expect(d.usage()).toMatchObject({ calls: 2, inFlight: 0 });
  });
});
