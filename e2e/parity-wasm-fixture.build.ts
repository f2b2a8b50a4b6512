// Writes fixtures/kernel/wasm.json: the WASM contract fixtures (scalar conversions, argument
// checks, traps, per-module budgets, timeout-terminate-replace) as data, with real binaries built
// by the shared WASM builder and facades from the real generator, so the Node runners and the
// browser parity suite run the same calls. Run: `npx tsx e2e/parity-wasm-fixture.build.ts`.
// The output is committed; rerun only when changing the cases below.

import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { buildWasm, f64Bytes, op } from '../shared/testing/wasm-builder.ts';
import { validateWasmBinary } from '../shared/packs/wasm-binary.ts';
import { encodeBase64 } from '../shared/sandbox/kernel/base64.ts';
import { WASM_BRIDGE_MODULE_ID, WASM_BRIDGE_SPECIFIER } from '../shared/protocol/wasm-bridge.ts';
import { generateWasmFacade } from '../shared/packs/wasm-facade.ts';
import { FixtureFileSchema, type FixtureCase } from '../shared/testing/kernel-fixture.ts';
import { catching, fixtureCase } from './fixture-cases.ts';
import { REPO_ROOT } from './support.ts';

const bytes = buildWasm({
  funcs: [
    { type: { params: ['i32', 'i32'], results: ['i32'] }, body: [op.local_get, 0, op.local_get, 1, op.i32_add] },
    { type: { params: ['f32'], results: ['f32'] }, body: [op.local_get, 0] },
    { type: { params: ['f64'], results: ['f64'] }, body: [op.local_get, 0, op.f64_const, ...f64Bytes(3), op.f64_mul] },
    { type: { params: ['i32'], results: [] }, body: [] },
    { type: { params: [], results: [] }, body: [op.unreachable] },
    // burn(n): count down from n, real work a timeout can stop.
    {
      type: { params: ['i32'], results: ['i32'] },
      body: [op.loop, op.blocktype_empty, op.local_get, 0, op.i32_const, 1, op.i32_sub, op.local_tee, 0, op.br_if, 0, op.end, op.local_get, 0],
    },
    { type: { params: ['i32', 'i32'], results: ['i32'] }, body: [op.local_get, 0, op.local_get, 1, op.i32_div_s] },
  ],
  exports: [
    { name: 'add', kind: 'func', index: 0 },
    { name: 'round32', kind: 'func', index: 1 },
    { name: 'triple-f64', kind: 'func', index: 2 },
    { name: 'sink', kind: 'func', index: 3 },
    { name: 'crash', kind: 'func', index: 4 },
    { name: 'burn', kind: 'func', index: 5 },
    { name: 'divide', kind: 'func', index: 6 },
    { name: 'hidden', kind: 'func', index: 0 },
  ],
});

const declared = ['add', 'round32', { wasm: 'triple-f64', as: 'triple' }, 'sink', 'crash', 'burn', 'divide'];
const validated = validateWasmBinary(bytes, { memoryPagesMax: 0, exports: declared });
if (!validated.ok) throw new Error(validated.message);

function wasmModule(moduleId: string, packName: string) {
  return {
    moduleId,
    kind: 'wasm' as const,
    packName,
    packVersion: '1.0.0',
    displayName: packName,
    source: generateWasmFacade({ moduleId, exports: validated.ok ? validated.value.exports : [] }),
    imports: { [WASM_BRIDGE_SPECIFIER]: WASM_BRIDGE_MODULE_ID },
    digest: '0'.repeat(64),
  };
}

const c = fixtureCase;

const cases: FixtureCase[] = [
  c(
    'wasm-i32-add-and-wrap',
    'i32 results wrap like WebAssembly does',
    'import { add } from "@fx/math";\nreturn [await add(2, 3), await add(2147483647, 1), await add(-5, 2)];',
    { ok: true, value: [5, -2147483648, -3] },
    { loaded: ['wasm:math'] },
  ),
  c(
    'wasm-f32-rounding',
    'an f32 parameter and result round to single precision',
    'import { round32 } from "@fx/math";\nreturn [await round32(0.1), await round32(16777217)];',
    { ok: true, value: [0.10000000149011612, 16777216] },
  ),
  c(
    'wasm-f64-pass-through',
    'f64 keeps double precision; the export is known by its `as` name',
    'import { triple } from "@fx/math";\nreturn [await triple(0.1), await triple(-2.5), await triple(1e-320)];',
    { ok: true, value: [0.30000000000000004, -7.5, 3e-320] },
  ),
  c(
    'wasm-f64-non-finite',
    'NaN, ±Infinity and -0 cross the bridge both ways (JSON alone would turn them into null and 0)',
    'import { triple, round32 } from "@fx/math";\nconst r = [await triple(NaN), await triple(Infinity), await triple(-Infinity), await triple(-0), await round32(NaN)];\nreturn [Number.isNaN(r[0]), r[1] === Infinity, r[2] === -Infinity, Object.is(r[3], -0), Number.isNaN(r[4])];',
    { ok: true, value: [true, true, true, true, true] },
  ),
  c('wasm-i32-rejects-nan', 'an i32 parameter refuses NaN instead of wrapping it to 0', `import { add } from "@fx/math";\n${catching('add(NaN, 1)')}`, {
    ok: true,
    value: ['wasm-argument', '`add` argument 1 expects an i32 (an integer), got NaN'],
  }),
  c('wasm-void-export', 'a void export resolves to undefined', 'import { sink } from "@fx/math";\nreturn typeof (await sink(1));', {
    ok: true,
    value: 'undefined',
  }),
  c('wasm-argument-count', 'the dispatcher checks the argument count', `import { add } from "@fx/math";\n${catching('add(1)')}`, {
    ok: true,
    value: ['wasm-argument', '`add` takes 2 arguments (i32, i32), got 1'],
  }),
  c('wasm-argument-type', 'an i32 parameter takes only integers in range', `import { add } from "@fx/math";\n${catching('add(1.5, 2)')}`, {
    ok: true,
    value: ['wasm-argument', '`add` argument 1 expects an i32 (an integer), got 1.5'],
  }),
  c('wasm-argument-string', 'strings are not numbers', `import { triple } from "@fx/math";\n${catching('triple("3")')}`, {
    ok: true,
    value: ['wasm-argument', '`triple` argument 1 expects a number, got a string'],
  }),
  c('wasm-undeclared-export', 'an export the manifest does not declare is not importable', 'import { hidden } from "@fx/math";\nreturn 1;', {
    ok: false,
    code: 'runtime-error',
    messageIncludes: ["Could not find export 'hidden'"],
  }),
  c('wasm-trap-unreachable', 'a trap is a wasm-trap named by the export', `import { crash } from "@fx/math";\n${catching('crash()')}`, {
    ok: true,
    value: ['wasm-trap', '`crash` trapped: unreachable'],
  }),
  c(
    'wasm-trap-divide-by-zero',
    'integer division by zero traps',
    `import { divide } from "@fx/math";\ntry { await divide(1, 0); } catch (e) { return [e.code, e.message.startsWith("\`divide\` trapped: ")]; }`,
    { ok: true, value: ['wasm-trap', true] },
  ),
  c(
    'wasm-budget-calls',
    "a module's manifest budget caps its calls per run",
    `import { add } from "@fx/budgeted";\nconst out = [];\nfor (let i = 0; i < 4; i++) { try { out.push(await add(i, 1)); } catch (e) { out.push([e.code, e.message]); } }\nreturn out;`,
    { ok: true, value: [1, 2, 3, ['wasm-budget-calls', '`@fx/budgeted` may make at most 3 WASM calls per run (budget: calls)']] },
  ),
  c(
    'wasm-budget-concurrency',
    "a second call in flight beyond the module's concurrency budget is refused",
    `import { burn } from "@fx/budgeted";\nconst settled = await Promise.allSettled([burn(5000000), burn(1000)]);\nreturn settled.map((s) => (s.status === "fulfilled" ? s.value : [s.reason.code, s.reason.message]));`,
    { ok: true, value: [0, ['wasm-budget-concurrency', '`@fx/budgeted` may have at most 1 WASM call in flight at once (budget: concurrency)']] },
  ),
  c(
    'wasm-timeout-terminate-replace',
    'a runaway export is stopped at its call timeout, its worker replaced, and the next call works',
    `import { burn, add } from "@fx/budgeted";\nlet first;\ntry { await burn(2147483647); first = "finished"; } catch (e) { first = [e.code, e.message]; }\nreturn [first, await add(2, 2)];`,
    { ok: true, value: [['wasm-timeout', '`burn` ran longer than its 200 ms limit and was stopped'], 4] },
  ),
  c(
    'wasm-bridge-gone-for-user',
    "the bridge binding is deleted before the node's code runs, real WASM or not",
    'import { add } from "@fx/math";\nreturn [typeof globalThis.__sandboxPacksWasmBridge, await add(1, 1)];',
    { ok: true, value: ['undefined', 2] },
  ),
];

const file = FixtureFileSchema.parse({
  description:
    'WASM contract: scalar conversions, argument checks, traps, per-module budgets and timeout-terminate-replace, with real binaries. Generated by e2e/parity-wasm-fixture.build.ts; run on Node (worker pool + WASM pool) and in Chromium (browser runner).',
  entries: { '@fx/math': 'wasm:math', '@fx/budgeted': 'wasm:budgeted' },
  modules: { 'wasm:math': wasmModule('wasm:math', '@fx/math'), 'wasm:budgeted': wasmModule('wasm:budgeted', '@fx/budgeted') },
  wasm: {
    'wasm:math': { bytesBase64: encodeBase64(bytes), exports: declared, memoryPagesMax: 0 },
    'wasm:budgeted': { bytesBase64: encodeBase64(bytes), exports: declared, memoryPagesMax: 0, budgets: { calls: 3, concurrency: 1, callTimeoutMs: 200 } },
  },
  cases,
});
writeFileSync(path.join(REPO_ROOT, 'fixtures/kernel/wasm.json'), `${JSON.stringify(file, null, 2)}\n`);
console.log(`wrote fixtures/kernel/wasm.json (${cases.length} cases)`);
