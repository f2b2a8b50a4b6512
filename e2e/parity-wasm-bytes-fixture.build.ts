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

const c = (name: string, why: string, code: string, expect: FixtureCase['expect'], extra: Partial<FixtureCase> = {}): FixtureCase => ({
  name,
  why,
  code,
  expect,
  ...extra,
});
const catching = (call: string) => `try { return await ${call}; } catch (e) { return [e.code, e.message]; }`;

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
