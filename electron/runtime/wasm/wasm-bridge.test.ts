// The dispatcher over the real worker pool, with the committed geo reference module: the path a
// guest call takes once the kernel binds `dispatcher.bridge`, minus the QuickJS marshaling.

import { readFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import type { ExecutableModule } from '../../../shared/protocol/index.ts';
import { buildWasm, op } from '../../../shared/testing/wasm-builder.ts';
import { validateWasmBinary } from '../../../shared/packs/wasm-binary.ts';
import { createWasmDispatcher } from '../../../shared/sandbox/wasm/wasm-dispatcher.ts';
import { WasmPool } from '../../testing/wasm-pool.ts';

const pool = new WasmPool({ size: 2 });
afterAll(() => pool.dispose());

function executable(moduleId: string, bytes: Uint8Array, exports: string[], budgets = {}): ExecutableModule {
  const validated = validateWasmBinary(bytes, { memoryPagesMax: 1, exports });
  if (!validated.ok) throw new Error(validated.message);
  return {
    moduleId,
    kind: 'wasm',
    packName: '@nodetool-ai/sandbox-geo',
    packVersion: '0.1.0',
    specifier: `@nodetool-ai/sandbox-geo/${moduleId}`,
    displayName: `@nodetool-ai/sandbox-geo/${moduleId}`,
    source: '',
    imports: {},
    digest: '0'.repeat(64),
    wasm: { bytes, exports: validated.value.exports, memoryPagesMax: 1, budgets },
  };
}

const geo = new Uint8Array(readFileSync(new URL('../../../packs/geo/wasm/geo.wasm', import.meta.url)));
const spin = buildWasm({
  funcs: [{ type: { params: [], results: [] }, body: [op.loop, op.blocktype_empty, op.br, 0, op.end] }],
  exports: [{ name: 'spin', kind: 'func', index: 0 }],
});

describe('dispatcher + worker pool', () => {
  it('runs the geo module through the pool with scalar checks', async () => {
    const d = createWasmDispatcher({ modules: { g: executable('g', geo, ['distanceMeters', 'tileX', 'assertLatitude']) } }, pool);
    const berlinParis = await d.bridge('g', 'distanceMeters', [52.52, 13.405, 48.8566, 2.3522]);
    expect(berlinParis.ok && Math.round((berlinParis.value as number) / 1000)).toBe(877);
    expect(await d.bridge('g', 'tileX', [13.4, 10])).toEqual({ ok: true, value: 550 });
    expect(await d.bridge('g', 'tileX', [13.4, 10.5])).toEqual({
      ok: false,
      code: 'wasm-argument',
      message: '`tileX` argument 2 expects an i32 (an integer), got 10.5',
    });
    expect(await d.bridge('g', 'assertLatitude', [45])).toEqual({ ok: true, value: undefined });
    expect(await d.bridge('g', 'assertLatitude', [123])).toEqual({ ok: false, code: 'wasm-trap', message: '`assertLatitude` trapped: unreachable' });
    expect(await d.bridge('g', 'haversineRad', [0, 0, 0, 0])).toMatchObject({ ok: false, code: 'wasm-not-declared' });
  });

  it('passes f32/f64 arguments unchanged and lets WebAssembly round f32 by its own rules', async () => {
    const ids = buildWasm({
      funcs: [
        { type: { params: ['f32'], results: ['f32'] }, body: [op.local_get, 0] },
        { type: { params: ['f64'], results: ['f64'] }, body: [op.local_get, 0] },
      ],
      exports: [
        { name: 'id32', kind: 'func', index: 0 },
        { name: 'id64', kind: 'func', index: 1 },
      ],
    });
    const d = createWasmDispatcher({ modules: { i: executable('i', ids, ['id32', 'id64']) } }, pool);
    const values = async (name: string, xs: number[]) => {
      const out = [];
      for (const x of xs) {
        const r = await d.bridge('i', name, [x]);
        out.push(r.ok ? r.value : r.code);
      }
      return out;
    };
    expect(await values('id32', [1.1, 1e40, -1e40, Number.NaN, Number.NEGATIVE_INFINITY, 2 ** -149 / 4])).toEqual([
      Math.fround(1.1),
      Number.POSITIVE_INFINITY,
      Number.NEGATIVE_INFINITY,
      Number.NaN,
      Number.NEGATIVE_INFINITY,
      0,
    ]);
    expect(await values('id64', [1.1, Number.MAX_VALUE, Number.NaN])).toEqual([1.1, Number.MAX_VALUE, Number.NaN]);
  });

  it('stops a runaway call at the pack’s lowered timeout, and the run continues', async () => {
    const s = { ...executable('s', spin, ['spin'], { callTimeoutMs: 100 }) };
    const mapped = { ...s, wasm: { ...s.wasm!, exports: [{ ...s.wasm!.exports[0]!, as: 'loopForever' }] } };
    const d = createWasmDispatcher({ modules: { s: mapped, g: executable('g', geo, ['tileX']) } }, pool);
    // Named by the guest's name for it, not the binary's.
    expect(await d.bridge('s', 'loopForever', [])).toEqual({
      ok: false,
      code: 'wasm-timeout',
      message: '`loopForever` ran longer than its 100 ms limit and was stopped',
    });
    expect(await d.bridge('g', 'tileX', [0, 1])).toEqual({ ok: true, value: 1 });
  });

  it('ends a call that would overrun the aggregate time budget with wasm-budget-time', async () => {
    const d = createWasmDispatcher({ modules: { s: executable('s', spin, ['spin'], { aggregateMs: 150 }) } }, pool);
    expect(await d.bridge('s', 'spin', [])).toEqual({
      ok: false,
      code: 'wasm-budget-time',
      message: '`@nodetool-ai/sandbox-geo/s` ran out of its 150 ms of WASM time for this run (budget: time)',
    });
    expect(await d.bridge('s', 'spin', [])).toEqual({
      ok: false,
      code: 'wasm-budget-time',
      message: '`@nodetool-ai/sandbox-geo/s` has used its 150 ms of WASM time for this run (budget: time)',
    });
  });

  it('closing the run stops its running call on the pool', async () => {
    const d = createWasmDispatcher({ modules: { s: executable('s', spin, ['spin']) } }, pool);
    const before = pool.stats().replaced;
    const running = d.bridge('s', 'spin', []);
    // Wait until a worker is actually running it (a replacement worker may still be starting).
    for (let i = 0; i < 500 && pool.stats().busy === 0; i++) await new Promise((r) => setTimeout(r, 10));
    expect(pool.stats().busy).toBe(1);
    d.close();
    expect(await running).toEqual({ ok: false, code: 'timeout', message: 'the run ended before the WASM call finished' });
    expect(pool.stats().replaced).toBe(before + 1);
  });
});
