// Writes fixtures/kernel/wasm-bytes.json: the byte and string ABI's contract fixtures (canonical
// ABI core lowering: arguments through cabi_realloc, results through a return area) as data, with
// hand-written WAT modules assembled by binaryen and facades from the real generator, so the Node
// runners and the browser parity suite run the same calls. Run:
// `npx tsx e2e/parity-wasm-bytes-fixture.build.ts`. The output is committed; rerun only when
// changing the modules or cases below.

import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { validateWasmBinary } from '../shared/packs/wasm-binary.ts';
import { generateWasmFacade } from '../shared/packs/wasm-facade.ts';
import type { WasmBudgets, WasmExportDeclaration } from '../shared/protocol/manifest.ts';
import { WASM_BRIDGE_MODULE_ID, WASM_BRIDGE_SPECIFIER } from '../shared/protocol/wasm-bridge.ts';
import { encodeBase64 } from '../shared/sandbox/kernel/base64.ts';
import { FixtureFileSchema, type FixtureCase, type FixtureWasm } from '../shared/testing/kernel-fixture.ts';
import { wat } from '../shared/testing/wat.ts';
import { catching, fixtureCase } from './fixture-cases.ts';
import { REPO_ROOT } from './support.ts';

/** A bump allocator from 1024 up, honouring `align`; memory grows as needed (up to its maximum). */
const BUMP_REALLOC = `
 (global $top (mut i32) (i32.const 1024))
 (func $realloc (export "cabi_realloc") (param $old i32) (param $oldSize i32) (param $align i32) (param $size i32) (result i32)
  (local $p i32) (local $end i32)
  (local.set $p (i32.and (i32.add (global.get $top) (i32.sub (local.get $align) (i32.const 1))) (i32.sub (i32.const 0) (local.get $align))))
  (local.set $end (i32.add (local.get $p) (local.get $size)))
  (if (i32.gt_u (local.get $end) (i32.mul (memory.size) (i32.const 65536)))
   (then (if (i32.eq (memory.grow (i32.shr_u (i32.add (i32.sub (local.get $end) (i32.mul (memory.size) (i32.const 65536))) (i32.const 65535)) (i32.const 16))) (i32.const -1)) (then unreachable))))
  (global.set $top (local.get $end))
  (local.get $p))`;

/** The well-behaved module: echo, upper-case ASCII, length, concatenation, a void and a scalar mix. */
const good = wat(`(module
 (memory (export "memory") 1 64)
 ${BUMP_REALLOC}
 ;; echo(bytes) -> bytes: the same range back, through the return area at 16.
 (func (export "echo") (param $p i32) (param $n i32) (result i32)
  (i32.store (i32.const 16) (local.get $p)) (i32.store (i32.const 20) (local.get $n)) (i32.const 16))
 ;; upper(string) -> string: ASCII a-z to A-Z in place.
 (func (export "upper") (param $p i32) (param $n i32) (result i32)
  (local $i i32) (local $c i32)
  (block $done (loop $next
   (br_if $done (i32.ge_u (local.get $i) (local.get $n)))
   (local.set $c (i32.load8_u (i32.add (local.get $p) (local.get $i))))
   (if (i32.and (i32.ge_u (local.get $c) (i32.const 97)) (i32.le_u (local.get $c) (i32.const 122)))
    (then (i32.store8 (i32.add (local.get $p) (local.get $i)) (i32.sub (local.get $c) (i32.const 32)))))
   (local.set $i (i32.add (local.get $i) (i32.const 1)))
   (br $next)))
  (i32.store (i32.const 16) (local.get $p)) (i32.store (i32.const 20) (local.get $n)) (i32.const 16))
 ;; length(bytes) -> i32
 (func (export "length") (param $p i32) (param $n i32) (result i32) (local.get $n))
 ;; concat(string, string) -> string: the two ranges are adjacent when the allocator is a bump one
 ;; with align 1, so the result is the first pointer and the summed length.
 (func (export "concat") (param $a i32) (param $an i32) (param $b i32) (param $bn i32) (result i32)
  (i32.store (i32.const 16) (local.get $a)) (i32.store (i32.const 20) (i32.add (local.get $an) (local.get $bn))) (i32.const 16))
 ;; sum(bytes, i32 scale) -> f64: the bytes summed, times scale.
 (func (export "sum") (param $p i32) (param $n i32) (param $k i32) (result f64)
  (local $i i32) (local $s i32)
  (block $done (loop $next
   (br_if $done (i32.ge_u (local.get $i) (local.get $n)))
   (local.set $s (i32.add (local.get $s) (i32.load8_u (i32.add (local.get $p) (local.get $i)))))
   (local.set $i (i32.add (local.get $i) (i32.const 1)))
   (br $next)))
  (f64.convert_i32_s (i32.mul (local.get $s) (local.get $k))))
 ;; zeros(i32 n) -> bytes: n zero bytes, freshly allocated.
 (func (export "zeros") (param $n i32) (result i32)
  (i32.store (i32.const 16) (call $realloc (i32.const 0) (i32.const 0) (i32.const 1) (local.get $n)))
  (i32.store (i32.const 20) (local.get $n)) (i32.const 16))
 ;; hello() -> string (UTF-8 with a multi-byte character)
 (data (i32.const 512) "h\\c3\\a9llo")
 (func (export "hello") (result i32)
  (i32.store (i32.const 16) (i32.const 512)) (i32.store (i32.const 20) (i32.const 6)) (i32.const 16))
)`);

const goodExports: WasmExportDeclaration[] = [
  { wasm: 'echo', as: 'echo', params: ['bytes'], result: 'bytes' },
  { wasm: 'upper', as: 'upper', params: ['string'], result: 'string' },
  { wasm: 'length', as: 'length', params: ['bytes'], result: 'i32' },
  { wasm: 'concat', as: 'concat', params: ['string', 'string'], result: 'string' },
  { wasm: 'sum', as: 'sum', params: ['bytes', 'i32'], result: 'f64' },
  { wasm: 'zeros', as: 'zeros', params: ['i32'], result: 'bytes' },
  { wasm: 'hello', as: 'hello', params: [], result: 'string' },
];

interface FixtureModule {
  readonly id: string;
  readonly pack: string;
  readonly bytes: Uint8Array;
  readonly exports: WasmExportDeclaration[];
  readonly memoryPagesMax: number;
  readonly budgets?: WasmBudgets;
}

// Hostile modules: hand-written WAT that breaks the canonical ABI's rules one at a time, each its
// own pack so that budgets and timeouts do not mix. Unless a module says otherwise its memory is
// one page that cannot grow, so every range is checked against 65536 bytes.

/** take(bytes) -> i32: the argument's length (the argument had to be copied in first). */
const TAKE = '(func (export "take") (param $p i32) (param $n i32) (result i32) (local.get $n))';
/** ping() -> i32: a scalar export, no lowering: the module still answers after a failed call. */
const PING = '(func (export "ping") (result i32) (i32.const 7))';
const takePing: WasmExportDeclaration[] = [{ wasm: 'take', as: 'take', params: ['bytes'], result: 'i32' }, 'ping'];

/** cabi_realloc answers 2 bytes before the end of memory, whatever it was asked for. */
const reallocOutOfRange = wat(`(module
 (memory (export "memory") 1 1)
 (func (export "cabi_realloc") (param i32 i32 i32 i32) (result i32)
  (i32.sub (i32.mul (memory.size) (i32.const 65536)) (i32.const 2)))
 ${TAKE}
 ${PING})`);

/** cabi_realloc answers 0xFFFFFFF0: negative as an i32, far past memory as the u32 pointer it is. */
const reallocHuge = wat(`(module
 (memory (export "memory") 1 1)
 (func (export "cabi_realloc") (param i32 i32 i32 i32) (result i32) (i32.const -16))
 ${TAKE}
 ${PING})`);

/** cabi_realloc never returns. */
const reallocLoop = wat(`(module
 (memory (export "memory") 1 1)
 (func (export "cabi_realloc") (param i32 i32 i32 i32) (result i32) (loop $spin (br $spin)) (i32.const 0))
 ${TAKE}
 ${PING})`);

/**
 * Memory grows to its maximum (16 pages) in the middle of a call: cabi_realloc grows it and
 * answers the start of the last page; fresh(n) grows it inside the export and answers n bytes
 * of the last page (zeros). The host must read the grown memory, not the buffer it had before.
 */
const grow = wat(`(module
 (memory (export "memory") 1 16)
 (func (export "cabi_realloc") (param i32 i32 i32 i32) (result i32)
  (drop (memory.grow (i32.sub (i32.const 16) (memory.size))))
  (i32.mul (i32.sub (memory.size) (i32.const 1)) (i32.const 65536)))
 ;; echo(bytes) -> bytes; where(bytes) -> i32: the pointer the argument was copied to.
 (func (export "echo") (param $p i32) (param $n i32) (result i32)
  (i32.store (i32.const 16) (local.get $p)) (i32.store (i32.const 20) (local.get $n)) (i32.const 16))
 (func (export "where") (param $p i32) (param $n i32) (result i32) (local.get $p))
 (func (export "fresh") (param $n i32) (result i32)
  (drop (memory.grow (i32.sub (i32.const 16) (memory.size))))
  (i32.store (i32.const 16) (i32.const 983040)) (i32.store (i32.const 20) (local.get $n)) (i32.const 16))
)`);

/** cabi_realloc grows memory to its maximum (2 pages) and answers 8 bytes before the new end. */
const growPast = wat(`(module
 (memory (export "memory") 1 2)
 (func (export "cabi_realloc") (param i32 i32 i32 i32) (result i32)
  (drop (memory.grow (i32.sub (i32.const 2) (memory.size))))
  (i32.sub (i32.mul (memory.size) (i32.const 65536)) (i32.const 8)))
 ${TAKE})`);

/** An honest allocator with results that are not: return areas and ranges out of bounds, lengths over the cap, bad UTF-8. */
const returns = wat(`(module
 (memory (export "memory") 1 1)
 ${BUMP_REALLOC}
 (func $area (param $p i32) (param $n i32) (result i32)
  (i32.store (i32.const 16) (local.get $p)) (i32.store (i32.const 20) (local.get $n)) (i32.const 16))
 (func (export "echo") (param $p i32) (param $n i32) (result i32) (call $area (local.get $p) (local.get $n)))
 ;; Return areas: misaligned, past the end, "negative" (0xFFFFFFFC, 4-aligned), and one that ends
 ;; exactly at the end of memory and points at the two bytes just before it (valid).
 (func (export "misaligned") (result i32) (i32.const 2))
 (func (export "area_past_end") (result i32) (i32.const 65532))
 (func (export "area_wraps") (result i32) (i32.const -4))
 (data (i32.const 65526) "\\01\\02")
 (func (export "at_end") (result i32)
  (i32.store (i32.const 65528) (i32.const 65526)) (i32.store (i32.const 65532) (i32.const 2)) (i32.const 65528))
 ;; Result ranges: past the end, wrapping past 2^32, and a length of 2^31-1 in a 1-page memory.
 (func (export "range_past_end") (result i32) (call $area (i32.const 65000) (i32.const 1000)))
 (func (export "range_wraps") (result i32) (call $area (i32.const -16) (i32.const 32)))
 (func (export "huge") (result i32) (call $area (i32.const 0) (i32.const 0x7fffffff)))
 ;; text(offset, length) -> string over these bytes: FF FE | ED A0 80 (a UTF-16 surrogate) | C3
 ;; (truncated) | C0 AF (overlong "/") | EF BB BF "ok" (a byte order mark, then ASCII).
 (data (i32.const 700) "\\ff\\fe\\ed\\a0\\80\\c3\\c0\\af\\ef\\bb\\bfok")
 (func (export "text") (param $off i32) (param $len i32) (result i32)
  (call $area (i32.add (i32.const 700) (local.get $off)) (local.get $len)))
 ;; boom(bytes) -> bytes: traps when the argument, already copied in, starts with 0xAB.
 (func (export "boom") (param $p i32) (param $n i32) (result i32)
  (if (i32.and (i32.gt_u (local.get $n) (i32.const 0)) (i32.eq (i32.load8_u (local.get $p)) (i32.const 0xab))) (then unreachable))
  (call $area (local.get $p) (local.get $n)))
 ;; tick() -> string: bumps a global and a memory counter and answers both as digits.
 (global $ticks (mut i32) (i32.const 0))
 (func (export "tick") (result i32)
  (global.set $ticks (i32.add (global.get $ticks) (i32.const 1)))
  (i32.store (i32.const 0) (i32.add (i32.load (i32.const 0)) (i32.const 1)))
  (i32.store8 (i32.const 600) (i32.add (i32.const 48) (global.get $ticks)))
  (i32.store8 (i32.const 601) (i32.add (i32.const 48) (i32.load (i32.const 0))))
  (call $area (i32.const 600) (i32.const 2)))
 ;; where(bytes) -> i32: the pointer the bump allocator gave the argument.
 (func (export "where") (param $p i32) (param $n i32) (result i32) (local.get $p))
)`);
const returnsExports: WasmExportDeclaration[] = [
  { wasm: 'echo', as: 'echo', params: ['bytes'], result: 'bytes' },
  // Mapped names: the guest's sentences must name the export as the guest knows it.
  { wasm: 'misaligned', as: 'misalignedArea', params: [], result: 'bytes' },
  { wasm: 'area_past_end', as: 'areaPastEnd', params: [], result: 'bytes' },
  { wasm: 'area_wraps', as: 'areaWraps', params: [], result: 'bytes' },
  { wasm: 'at_end', as: 'atEnd', params: [], result: 'bytes' },
  { wasm: 'range_past_end', as: 'rangePastEnd', params: [], result: 'bytes' },
  { wasm: 'range_wraps', as: 'rangeWraps', params: [], result: 'bytes' },
  { wasm: 'huge', as: 'huge', params: [], result: 'bytes' },
  { wasm: 'text', as: 'text', params: ['i32', 'i32'], result: 'string' },
  { wasm: 'text', as: 'raw', params: ['i32', 'i32'], result: 'bytes' },
  { wasm: 'boom', as: 'boom', params: ['bytes'], result: 'bytes' },
  { wasm: 'tick', as: 'tick', params: [], result: 'string' },
  { wasm: 'where', as: 'where', params: ['bytes'], result: 'i32' },
];

/**
 * cabi_post_<name> after the result was read: one traps, one does nothing, one zeroes the result
 * and its return area (the host must have copied them already), and one traps only when it is
 * handed the export's own result (42).
 */
const post = wat(`(module
 (memory (export "memory") 1 1)
 ${BUMP_REALLOC}
 (func $area (param $p i32) (param $n i32) (result i32)
  (i32.store (i32.const 16) (local.get $p)) (i32.store (i32.const 20) (local.get $n)) (i32.const 16))
 (func (export "echo_trap") (param $p i32) (param $n i32) (result i32) (call $area (local.get $p) (local.get $n)))
 (func (export "cabi_post_echo_trap") (param i32) unreachable)
 (func (export "echo_noop") (param $p i32) (param $n i32) (result i32) (call $area (local.get $p) (local.get $n)))
 (func (export "cabi_post_echo_noop") (param i32))
 (func (export "echo_clobber") (param $p i32) (param $n i32) (result i32) (call $area (local.get $p) (local.get $n)))
 (func (export "cabi_post_echo_clobber") (param $area i32)
  (memory.fill (i32.load (local.get $area)) (i32.const 0) (i32.load offset=4 (local.get $area)))
  (i64.store (local.get $area) (i64.const 0)))
 (func (export "answer") (param $p i32) (param $n i32) (result i32) (i32.const 42))
 (func (export "cabi_post_answer") (param $v i32) (if (i32.eq (local.get $v) (i32.const 42)) (then unreachable)))
)`);
const postExports: WasmExportDeclaration[] = [
  { wasm: 'echo_trap', as: 'echoTrap', params: ['bytes'], result: 'bytes' },
  { wasm: 'echo_noop', as: 'echoNoop', params: ['bytes'], result: 'bytes' },
  { wasm: 'echo_clobber', as: 'echoClobber', params: ['bytes'], result: 'bytes' },
  { wasm: 'answer', as: 'answer', params: ['bytes'], result: 'i32' },
];

/**
 * What a call leaves in memory must never reach the next call, whatever the host does to make
 * memories cheap (a kept memory zeroed before reuse, shared/sandbox/wasm/instance-supply.mjs):
 * scribble fills the whole page with 0xAA (its data segment "abc" at 512 too), scribble_trap does
 * the same and traps, grow_scribble grows to 4 pages and fills them all; dirty() counts the bytes
 * that differ from a fresh instance's memory (zeros, and "abc" at 512) and pages() answers
 * memory.size. Scalar exports only: a module with a memory and no byte ABI.
 */
const leftovers = wat(`(module
 (memory (export "memory") 1 4)
 (data (i32.const 512) "abc")
 (func (export "scribble") (result i32) (memory.fill (i32.const 0) (i32.const 0xaa) (i32.const 65536)) (i32.const 1))
 (func (export "scribble_trap") (result i32) (memory.fill (i32.const 0) (i32.const 0xaa) (i32.const 65536)) unreachable)
 (func (export "grow_scribble") (result i32)
  (drop (memory.grow (i32.const 3)))
  (memory.fill (i32.const 0) (i32.const 0xaa) (i32.const 262144))
  (memory.size))
 (func (export "pages") (result i32) (memory.size))
 (func (export "dirty") (result i32)
  (local $i i32) (local $n i32) (local $want i32)
  (block $done (loop $next
   (br_if $done (i32.ge_u (local.get $i) (i32.mul (memory.size) (i32.const 65536))))
   (local.set $want (i32.const 0))
   (if (i32.eq (local.get $i) (i32.const 512)) (then (local.set $want (i32.const 97))))
   (if (i32.eq (local.get $i) (i32.const 513)) (then (local.set $want (i32.const 98))))
   (if (i32.eq (local.get $i) (i32.const 514)) (then (local.set $want (i32.const 99))))
   (if (i32.ne (i32.load8_u (local.get $i)) (local.get $want)) (then (local.set $n (i32.add (local.get $n) (i32.const 1)))))
   (local.set $i (i32.add (local.get $i) (i32.const 1)))
   (br $next)))
  (local.get $n))
)`);
const leftoversExports: WasmExportDeclaration[] = [
  'scribble',
  { wasm: 'scribble_trap', as: 'scribbleTrap' },
  { wasm: 'grow_scribble', as: 'growScribble' },
  'pages',
  'dirty',
];

const hostile = (name: string, bytes: Uint8Array, exports: WasmExportDeclaration[], memoryPagesMax: number, budgets?: WasmBudgets): FixtureModule => ({
  id: `wasm:hostile-${name}`,
  pack: `@fx/hostile-${name}`,
  bytes,
  exports,
  memoryPagesMax,
  ...(budgets ? { budgets } : {}),
});

const MODULES: FixtureModule[] = [
  { id: 'wasm:good', pack: '@fx/bytes', bytes: good, exports: goodExports, memoryPagesMax: 64 },
  {
    id: 'wasm:small',
    pack: '@fx/bytes-small',
    bytes: good,
    exports: goodExports,
    memoryPagesMax: 64,
    budgets: { callInputBytes: 8, callOutputBytes: 8, inputBytes: 20, outputBytes: 20 },
  },
  hostile('realloc-out-of-range', reallocOutOfRange, takePing, 1),
  hostile('realloc-huge', reallocHuge, takePing, 1),
  hostile('realloc-loop', reallocLoop, takePing, 1, { callTimeoutMs: 200 }),
  hostile(
    'grow',
    grow,
    [
      { wasm: 'echo', as: 'echo', params: ['bytes'], result: 'bytes' },
      { wasm: 'where', as: 'where', params: ['bytes'], result: 'i32' },
      { wasm: 'fresh', as: 'fresh', params: ['i32'], result: 'bytes' },
    ],
    16,
  ),
  hostile('grow-past', growPast, [{ wasm: 'take', as: 'take', params: ['bytes'], result: 'i32' }], 2),
  hostile('returns', returns, returnsExports, 1),
  hostile('post', post, postExports, 1),
  hostile('leftovers', leftovers, leftoversExports, 4),
];

function wasmModule(mod: FixtureModule) {
  const validated = validateWasmBinary(mod.bytes, { memoryPagesMax: mod.memoryPagesMax, exports: mod.exports });
  if (!validated.ok) throw new Error(`${mod.id}: ${validated.message}`);
  return {
    moduleId: mod.id,
    kind: 'wasm' as const,
    packName: mod.pack,
    packVersion: '1.0.0',
    displayName: mod.pack,
    source: generateWasmFacade({ moduleId: mod.id, exports: validated.value.exports }),
    imports: { [WASM_BRIDGE_SPECIFIER]: WASM_BRIDGE_MODULE_ID },
    digest: '0'.repeat(64),
  };
}

const c = fixtureCase;
/** Guest code that makes `calls` one after another and answers each one's value (bytes as an array) or [code, message]. */
const settleAll = (calls: string[]) =>
  `const out = [];\nfor (const call of [${calls.map((x) => `() => ${x}`).join(', ')}]) {\n  try { const v = await call(); out.push(v instanceof Uint8Array ? Array.from(v) : v); } catch (e) { out.push([e.code, e.message]); }\n}\nreturn out;`;

const cases: FixtureCase[] = [
  c(
    'bytes-echo',
    'a Uint8Array goes in through cabi_realloc and comes back through the return area as a Uint8Array of its own',
    'import { echo } from "@fx/bytes";\nconst input = new Uint8Array([1, 2, 3, 255]);\nconst out = await echo(input);\nreturn [out instanceof Uint8Array, Array.from(out), out !== input, Array.from(await echo(new Uint8Array(0)))];',
    { ok: true, value: [true, [1, 2, 3, 255], true, []] },
  ),
  c(
    'bytes-view',
    'a view into a larger buffer passes only the bytes it views',
    'import { echo } from "@fx/bytes";\nconst big = new Uint8Array([9, 9, 1, 2, 9]);\nreturn Array.from(await echo(big.subarray(2, 4)));',
    { ok: true, value: [1, 2] },
  ),
  c(
    'string-round-trip',
    'a string goes in as UTF-8 and a string result comes back decoded',
    'import { upper, concat, hello } from "@fx/bytes";\nreturn [await upper("abc-xyz é"), await concat("ab", "cd"), await hello(), await upper("")];',
    { ok: true, value: ['ABC-XYZ é', 'abcd', 'héllo', ''] },
  ),
  c(
    'bytes-scalar-mix',
    'bytes and scalars in one call, scalar results from byte parameters',
    'import { sum, length } from "@fx/bytes";\nreturn [await sum(new Uint8Array([1, 2, 3]), 10), await length(new Uint8Array(1000))];',
    { ok: true, value: [60, 1000] },
  ),
  c(
    'bytes-large',
    'a 1 MB argument and a 1 MB result cross (memory grows to hold them)',
    'import { echo, zeros } from "@fx/bytes";\nconst input = new Uint8Array(1 << 20);\nfor (let i = 0; i < input.length; i += 4096) input[i] = i >> 12;\nconst out = await echo(input);\nconst z = await zeros(1 << 20);\nreturn [out.length, out[4096 * 7], out[4096 * 7 + 1], z.length, z.every((b) => b === 0)];',
    { ok: true, value: [1048576, 7, 0, 1048576, true] },
  ),
  c(
    'bytes-argument-types',
    'a bytes parameter takes only a Uint8Array and a string parameter only a string, with a sentence naming the position',
    'import { echo, upper } from "@fx/bytes";\nconst out = [];\nfor (const call of [() => echo("abc"), () => echo([1, 2]), () => echo(new Uint16Array(2)), () => upper(new Uint8Array(1)), () => upper(5)]) {\n  try { await call(); out.push("passed"); } catch (e) { out.push([e.code, e.message]); }\n}\nreturn out;',
    {
      ok: true,
      value: [
        ['wasm-argument', '`echo` argument 1 expects a Uint8Array, got a string'],
        ['wasm-argument', '`echo` argument 1 expects a Uint8Array, got an array'],
        ['wasm-argument', '`echo` argument 1 expects a Uint8Array, got a Uint16Array'],
        ['wasm-argument', '`upper` argument 1 expects a string, got a Uint8Array'],
        ['wasm-argument', '`upper` argument 1 expects a string, got 5'],
      ],
    },
  ),
  c(
    'bytes-budget-call-input',
    "a call passing more bytes than the module's per-call input budget is refused before anything is copied",
    `import { echo } from "@fx/bytes-small";\n${catching('echo(new Uint8Array(9))')}`,
    { ok: true, value: ['wasm-budget-bytes', '`@fx/bytes-small` may take at most 8 bytes per WASM call; this call passes 9 (budget: input bytes)'] },
  ),
  c(
    'bytes-budget-call-output',
    "a result longer than the module's per-call output budget is refused before it is copied",
    `import { zeros } from "@fx/bytes-small";\n${catching('zeros(9)')}`,
    { ok: true, value: ['wasm-budget-bytes', '`zeros` returned 9 bytes, more than the 8 bytes this call may return (budget: output bytes)'] },
  ),
  c(
    'bytes-budget-run',
    "the run-wide byte budgets count every call's bytes",
    'import { echo } from "@fx/bytes-small";\nconst out = [];\nfor (let i = 0; i < 4; i++) { try { out.push((await echo(new Uint8Array(6))).length); } catch (e) { out.push([e.code, e.message]); } }\nreturn out;',
    {
      ok: true,
      value: [
        6,
        6,
        6,
        ['wasm-budget-bytes', '`@fx/bytes-small` may pass at most 20 bytes into WASM per run; 18 are used and this call passes 6 (budget: input bytes)'],
      ],
    },
  ),

  // Hostile modules. Each case also calls again on the same run where that means something: a
  // failed call is the call's failure, never the run's.
  c(
    'hostile-realloc-out-of-range',
    "cabi_realloc's answer is checked against memory before anything is copied: 2 bytes before the end holds 2 bytes (and 0), not 3 or 16",
    `import { take } from "@fx/hostile-realloc-out-of-range";\n${settleAll(['take(new Uint8Array(16))', 'take(new Uint8Array(3))', 'take(new Uint8Array(2))', 'take(new Uint8Array(0))'])}`,
    {
      ok: true,
      value: [
        ['wasm-trap', "`take` trapped: cabi_realloc's answer for argument 1 of `take` (65534, 16 bytes) lies outside the module's memory of 65536 bytes"],
        ['wasm-trap', "`take` trapped: cabi_realloc's answer for argument 1 of `take` (65534, 3 bytes) lies outside the module's memory of 65536 bytes"],
        2,
        0,
      ],
    },
  ),
  c(
    'hostile-realloc-huge',
    "cabi_realloc answering 0xFFFFFFF0 (-16 as an i32) is read as the u32 pointer it is, far past memory, even for an empty argument; the module's next call works",
    `import { take, ping } from "@fx/hostile-realloc-huge";\n${settleAll(['take(new Uint8Array(16))', 'take(new Uint8Array(0))', 'ping()'])}`,
    {
      ok: true,
      value: [
        ['wasm-trap', "`take` trapped: cabi_realloc's answer for argument 1 of `take` (4294967280, 16 bytes) lies outside the module's memory of 65536 bytes"],
        ['wasm-trap', "`take` trapped: cabi_realloc's answer for argument 1 of `take` (4294967280, 0 bytes) lies outside the module's memory of 65536 bytes"],
        7,
      ],
    },
  ),
  c(
    'hostile-return-area',
    'the return area must be 4-aligned and its 8 bytes inside memory (0xFFFFFFFC is aligned but past the end); one ending exactly at the end of memory is fine',
    `import { misalignedArea, areaPastEnd, areaWraps, atEnd, echo } from "@fx/hostile-returns";\n${settleAll(['misalignedArea()', 'areaPastEnd()', 'areaWraps()', 'atEnd()', 'echo(new Uint8Array([5]))'])}`,
    {
      ok: true,
      value: [
        ['wasm-trap', '`misalignedArea` trapped: `misalignedArea` returned a return area at 2, which is not 4-byte aligned'],
        ['wasm-trap', "`areaPastEnd` trapped: the return area of `areaPastEnd` (65532, 8 bytes) lies outside the module's memory of 65536 bytes"],
        ['wasm-trap', "`areaWraps` trapped: the return area of `areaWraps` (4294967292, 8 bytes) lies outside the module's memory of 65536 bytes"],
        [1, 2],
        [5],
      ],
    },
  ),
  c(
    'hostile-result-range',
    'the (ptr, len) a return area holds must lie inside memory: past the end, or wrapping past 2^32 (0xFFFFFFF0 + 32), is a trap before anything is copied',
    `import { rangePastEnd, rangeWraps, echo } from "@fx/hostile-returns";\n${settleAll(['rangePastEnd()', 'rangeWraps()', 'echo(new Uint8Array([6]))'])}`,
    {
      ok: true,
      value: [
        ['wasm-trap', "`rangePastEnd` trapped: the result of `rangePastEnd` (65000, 1000 bytes) lies outside the module's memory of 65536 bytes"],
        ['wasm-trap', "`rangeWraps` trapped: the result of `rangeWraps` (4294967280, 32 bytes) lies outside the module's memory of 65536 bytes"],
        [6],
      ],
    },
  ),
  c(
    'hostile-result-length-over-cap',
    'a result length of 2^31-1 in a 1-page memory is refused by the output allowance (16 MB per call) before the range is even checked, so nothing is allocated for it',
    `import { huge, echo } from "@fx/hostile-returns";\n${settleAll(['huge()', 'echo(new Uint8Array([7]))'])}`,
    {
      ok: true,
      value: [['wasm-budget-bytes', '`huge` returned 2147483647 bytes, more than the 16777216 bytes this call may return (budget: output bytes)'], [7]],
    },
  ),
  c(
    'hostile-realloc-never-returns',
    "cabi_realloc runs under the call's timeout: a realloc that loops is stopped at the module's 200 ms, and the run goes on (the module's scalar export, then another module)",
    `import { take, ping } from "@fx/hostile-realloc-loop";\nimport { echo } from "@fx/bytes";\n${settleAll(['take(new Uint8Array(4))', 'ping()', 'echo(new Uint8Array([1, 2]))'])}`,
    { ok: true, value: [['wasm-timeout', '`take` ran longer than its 200 ms limit and was stopped'], 7, [1, 2]] },
  ),
  c(
    'hostile-memory-grows-to-max',
    'memory grown to its maximum inside cabi_realloc (the argument lands in the last of 16 pages) or inside the export is read as it is after the call: the calls work',
    'import { echo, where, fresh } from "@fx/hostile-grow";\nconst input = Uint8Array.from({ length: 1000 }, (_, i) => i & 255);\nconst out = await echo(input);\nconst f = await fresh(65536);\nreturn [out.length, out.every((b, i) => b === (i & 255)), await where(new Uint8Array(1)), f.length, f.every((b) => b === 0)];',
    { ok: true, value: [1000, true, 983040, 65536, true] },
  ),
  c(
    'hostile-memory-grows-past-range',
    'cabi_realloc grows memory to its maximum (2 pages) and answers 8 bytes before the new end: 16 bytes do not fit (checked against the grown memory), 8 do',
    `import { take } from "@fx/hostile-grow-past";\n${settleAll(['take(new Uint8Array(16))', 'take(new Uint8Array(8))'])}`,
    {
      ok: true,
      value: [
        ['wasm-trap', "`take` trapped: cabi_realloc's answer for argument 1 of `take` (131064, 16 bytes) lies outside the module's memory of 131072 bytes"],
        8,
      ],
    },
  ),
  c(
    'hostile-string-not-utf8',
    'a string result that is not UTF-8 (FF FE) is a tagged failure, not replacement characters: the canonical ABI traps on invalid code units, and we report it as wasm-trap; the same bytes as a bytes result are fine, and the next string call works',
    `import { text, raw } from "@fx/hostile-returns";\n${settleAll(['text(0, 2)', 'raw(0, 2)', 'text(11, 2)'])}`,
    { ok: true, value: [['wasm-trap', '`text` returned a string that is not valid UTF-8'], [255, 254], 'ok'] },
  ),
  c(
    'hostile-string-utf8-strict',
    'UTF-8 is decoded strictly: an encoded surrogate, a truncated sequence and an overlong form are refused like FF FE; a leading byte order mark is a character (U+FEFF), kept as the canonical ABI keeps it',
    `import { text } from "@fx/hostile-returns";\n${settleAll(['text(2, 3)', 'text(5, 1)', 'text(6, 2)', 'text(8, 5)'])}`,
    {
      ok: true,
      value: [
        ['wasm-trap', '`text` returned a string that is not valid UTF-8'],
        ['wasm-trap', '`text` returned a string that is not valid UTF-8'],
        ['wasm-trap', '`text` returned a string that is not valid UTF-8'],
        '\uFEFFok',
      ],
    },
  ),
  c(
    'string-byte-order-mark-round-trip',
    'a string that starts with U+FEFF goes in and comes back with it',
    'import { upper } from "@fx/bytes";\nconst out = await upper("\\uFEFFab");\nreturn [out.length, out.charCodeAt(0), out.slice(1)];',
    { ok: true, value: [3, 0xfeff, 'AB'] },
  ),
  c(
    'bytes-result-does-not-fit',
    "a bytes result the nearly full engine cannot hold is refused with memory-limit, which the guest can catch; the engine's memory is not written over (quickjs-emscripten's staging would write through address 0) and the next case runs on the same engine",
    [
      'import { zeros } from "@fx/bytes";',
      'const keep = [];',
      'try { for (;;) keep.push(new Uint8Array(1 << 20)); } catch {}',
      'keep.length -= 2;',
      'try { return ["answered", (await zeros(3 << 20)).length]; } catch (e) { return [e.code, e.message.includes("does not fit in the sandbox\'s memory")]; }',
    ].join('\n'),
    { ok: true, value: ['memory-limit', true] },
    { timeoutMs: 20_000 },
  ),
  c(
    'string-too-long-to-copy',
    "a string the engine cannot copy out of a nearly full sandbox memory is refused with a sentence, never passed on as another string (the engine's copy answers '' when it fails)",
    'import { upper } from "@fx/bytes";\nconst s = "\\uFEFF" + "a".repeat(20e6);\ntry { return await upper(s); } catch (e) { return [e.code, e.message]; }',
    {
      ok: true,
      value: [
        'invalid-data',
        "A string of 20000001 characters passed to WASM could not be copied out of the sandbox's memory, which is nearly full; pass less at a time.",
      ],
    },
    { timeoutMs: 20_000 },
  ),
  c(
    'hostile-post-return',
    "cabi_post_<name> runs after the result was copied: a post that traps fails the call, one that does nothing or zeroes the result and its return area leaves the value intact, and a post handed the export's own result (42) shows it got it by trapping",
    `import { echoTrap, echoNoop, echoClobber, answer } from "@fx/hostile-post";\n${settleAll(['echoTrap(new Uint8Array([1, 2]))', 'echoNoop(new Uint8Array([1, 2]))', 'echoClobber(new Uint8Array([1, 2, 3]))', 'answer(new Uint8Array([9]))'])}`,
    {
      ok: true,
      value: [
        ['wasm-trap', '`echoTrap` trapped: unreachable'],
        [1, 2],
        [1, 2, 3],
        ['wasm-trap', '`answer` trapped: unreachable'],
      ],
    },
  ),
  c(
    'hostile-stateless',
    'every call gets a fresh instance: a global and a memory counter bumped by each call read 1 every time (in sequence and two in flight), and the bump allocator starts at 1024 every time',
    'import { tick, where } from "@fx/hostile-returns";\nconst seq = [];\nfor (let i = 0; i < 4; i++) seq.push(await tick());\nreturn [seq, await Promise.all([tick(), tick()]), [await where(new Uint8Array(8)), await where(new Uint8Array(8))]];',
    {
      ok: true,
      value: [
        ['11', '11', '11', '11'],
        ['11', '11'],
        [1024, 1024],
      ],
    },
  ),
  c(
    'hostile-leftovers',
    "nothing a call writes reaches the next call: after a call fills its memory (data segment included), after one that fills it and traps, after one that grows it to 4 pages and fills them, and beside one in flight, the next call's memory is a fresh instance's (1 page, zeros and its data segment)",
    'import { scribble, scribbleTrap, growScribble, pages, dirty } from "@fx/hostile-leftovers";\nconst out = [await pages(), await dirty(), await scribble(), await dirty()];\ntry { await scribbleTrap(); out.push("passed"); } catch (e) { out.push(e.code); }\nout.push(await dirty(), await growScribble(), await pages(), await dirty());\nconst [filled, seen] = await Promise.all([scribble(), dirty()]);\nout.push(filled, seen, await dirty());\nreturn out;',
    { ok: true, value: [1, 0, 1, 0, 'wasm-trap', 0, 4, 1, 0, 1, 0, 0] },
  ),
  c(
    'hostile-trap-after-realloc',
    'a trap inside the export after cabi_realloc ran and the argument was copied in (it traps on reading 0xAB) is a wasm-trap; the next call works',
    `import { boom } from "@fx/hostile-returns";\n${settleAll(['boom(new Uint8Array([0xab, 1]))', 'boom(new Uint8Array([1, 0xab]))'])}`,
    {
      ok: true,
      value: [
        ['wasm-trap', '`boom` trapped: unreachable'],
        [1, 171],
      ],
    },
  ),
];

const wasm: Record<string, FixtureWasm> = {};
for (const mod of MODULES) {
  wasm[mod.id] = {
    bytesBase64: encodeBase64(mod.bytes),
    exports: mod.exports,
    memoryPagesMax: mod.memoryPagesMax,
    ...(mod.budgets ? { budgets: mod.budgets } : {}),
  };
}
const file = FixtureFileSchema.parse({
  description:
    'WASM bytes and strings (canonical ABI core lowering): arguments through cabi_realloc, results through a return area, byte budgets, and hand-written hostile modules (WAT). Generated by e2e/parity-wasm-bytes-fixture.build.ts; run on Node (worker pool + WASM lanes) and in Chromium (browser runner).',
  entries: Object.fromEntries(MODULES.map((m) => [m.pack, m.id])),
  modules: Object.fromEntries(MODULES.map((m) => [m.id, wasmModule(m)])),
  wasm,
  cases,
});
writeFileSync(path.join(REPO_ROOT, 'fixtures/kernel/wasm-bytes.json'), `${JSON.stringify(file, null, 2)}\n`);
console.log(`wrote fixtures/kernel/wasm-bytes.json (${cases.length} cases)`);
