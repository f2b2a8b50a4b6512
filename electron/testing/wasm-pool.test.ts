// The pool against real worker threads and the real engine: instance-per-call statelessness,
// traps, timeout-terminate-replace, aborts, the compile cache, and that disposal leaves no thread.

import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { buildWasm, f64Bytes, op } from '../../shared/testing/wasm-builder.ts';
import { WasmModuleCache } from '../runtime/wasm/module-cache.ts';
import { WasmPool } from './wasm-pool.ts';

const stateful = buildWasm({
  funcs: [
    // bump(): ++counter, return it — 1 on every call if no instance state survives.
    { type: { params: [], results: ['i32'] }, body: [op.global_get, 0, op.i32_const, 1, op.i32_add, op.global_set, 0, op.global_get, 0] },
    // store(v): memory[0] = v
    { type: { params: ['i32'], results: [] }, body: [op.i32_const, 0, op.local_get, 0, op.i32_store, 2, 0] },
    // load(): memory[0]
    { type: { params: [], results: ['i32'] }, body: [op.i32_const, 0, op.i32_load, 2, 0] },
    // spin(): loop forever
    { type: { params: [], results: [] }, body: [op.loop, op.blocktype_empty, op.br, 0, op.end] },
    // crash(): unreachable
    { type: { params: [], results: [] }, body: [op.unreachable] },
    // div(a, b)
    { type: { params: ['i32', 'i32'], results: ['i32'] }, body: [op.local_get, 0, op.local_get, 1, op.i32_div_s] },
    // half(x): x * 0.5
    { type: { params: ['f64'], results: ['f64'] }, body: [op.local_get, 0, op.f64_const, ...f64Bytes(0.5), op.f64_mul] },
  ],
  memories: [{ min: 1, max: 1 }],
  globals: [{ type: 'i32', mutable: true, init: [op.i32_const, 0] }],
  exports: ['bump', 'store', 'load', 'spin', 'crash', 'div', 'half'].map((name, index) => ({ name, kind: 'func' as const, index })),
});

const pools: WasmPool[] = [];
function pool(size = 2, cache?: WasmModuleCache): WasmPool {
  const p = new WasmPool({ size, ...(cache ? { cache } : {}) });
  pools.push(p);
  return p;
}
afterEach(async () => {
  await Promise.all(pools.splice(0).map((p) => p.dispose()));
});

const call = (p: WasmPool, exportName: string, args: number[] = [], timeoutMs = 5000, bytes: Uint8Array = stateful) =>
  p.call({ bytes, exportName, args, timeoutMs });

function threadCount(): number {
  const status = readFileSync('/proc/self/status', 'utf8');
  return Number(/^Threads:\s+(\d+)/m.exec(status)?.[1]);
}

describe('WasmPool', () => {
  it('runs exports and reports run time', async () => {
    const p = pool();
    const r = await call(p, 'div', [7, 2]);
    expect(r).toMatchObject({ ok: true, value: 3 });
    expect(r.runMs).toBeGreaterThanOrEqual(0);
    expect(await call(p, 'half', [Number.POSITIVE_INFINITY])).toMatchObject({ ok: true, value: Number.POSITIVE_INFINITY });
    expect(await call(p, 'half', [Number.NaN])).toMatchObject({ ok: true, value: Number.NaN });
    expect(p.stats().replaced).toBe(0);
    expect(await call(p, 'store', [1])).toMatchObject({ ok: true, value: undefined });
  });

  it('keeps no state between calls: a mutable global and linear memory start fresh every call', async () => {
    // The module instantiates quietly, so the worker keeps a fresh instance ready between calls:
    // each one still serves exactly one call.
    const cache = new WasmModuleCache();
    const compiled = await cache.get(stateful);
    expect(compiled.ok && compiled.value.spare).toBe(true);
    const p = pool(1, cache); // one worker, so every call lands on the same thread and cached module
    const bumps = [];
    for (let i = 0; i < 5; i++) bumps.push(await call(p, 'bump'));
    expect(bumps.map((r) => (r.ok ? r.value : r.code))).toEqual([1, 1, 1, 1, 1]);
    expect(await call(p, 'store', [42])).toMatchObject({ ok: true });
    expect(await call(p, 'load')).toMatchObject({ ok: true, value: 0 });
  });

  it('reports traps with the engine message', async () => {
    const p = pool();
    expect(await call(p, 'crash')).toMatchObject({ ok: false, code: 'wasm-trap', message: 'unreachable' });
    expect(await call(p, 'div', [1, 0])).toMatchObject({ ok: false, code: 'wasm-trap', message: 'divide by zero' });
    expect(await call(p, 'div', [-(2 ** 31), -1])).toMatchObject({ ok: false, code: 'wasm-trap', message: 'divide result unrepresentable' });
    // A trap does not cost a worker.
    expect(p.stats().replaced).toBe(0);
  });

  it('times out a runaway call, replaces its worker at once, and the next call works', async () => {
    const p = pool(1);
    await call(p, 'bump'); // wait until the worker is up, so the timer measures the call
    const [before] = p.threadIds();
    const r = await call(p, 'spin', [], 100);
    expect(r).toEqual({ ok: false, code: 'wasm-timeout', message: '`spin` ran longer than its 100 ms limit and was stopped', runMs: 100 });
    const [after] = p.threadIds();
    expect(after).not.toBe(before);
    expect(p.stats()).toMatchObject({ workers: 1, replaced: 1, started: 2 });
    expect(await call(p, 'div', [9, 3])).toMatchObject({ ok: true, value: 3 });
  });

  it('keeps serving other calls while one worker spins', async () => {
    const p = pool(2);
    const spinning = call(p, 'spin', [], 1500);
    const quick = await Promise.all([call(p, 'div', [4, 2]), call(p, 'div', [6, 2]), call(p, 'div', [8, 2])]);
    expect(quick.map((r) => (r.ok ? r.value : r.code))).toEqual([2, 3, 4]);
    expect(await spinning).toMatchObject({ ok: false, code: 'wasm-timeout' });
  });

  it('stops a running call when its run is aborted, and drops queued ones', async () => {
    const p = pool(1);
    await call(p, 'bump');
    const controller = new AbortController();
    const running = p.call({ bytes: stateful, exportName: 'spin', args: [], timeoutMs: 5000, signal: controller.signal });
    const queued = p.call({ bytes: stateful, exportName: 'bump', args: [], timeoutMs: 5000, signal: controller.signal });
    for (let i = 0; i < 500 && p.stats().busy === 0; i++) await new Promise((r) => setTimeout(r, 10));
    expect(p.stats()).toMatchObject({ busy: 1, queued: 1 });
    controller.abort();
    const expected = { ok: false, code: 'timeout', message: 'the run ended before the WASM call finished', runMs: 0 };
    expect(await running).toEqual(expected);
    expect(await queued).toEqual(expected);
    expect(p.stats().replaced).toBe(1);
    expect(await call(p, 'bump')).toMatchObject({ ok: true, value: 1 });
  });

  it('compiles each distinct binary once per cache, keyed by content', async () => {
    const cache = new WasmModuleCache();
    const p = pool(2, cache);
    await call(p, 'bump', [], 5000, stateful);
    await call(p, 'bump', [], 5000, stateful.slice()); // same content, different object
    expect(cache.size).toBe(1);
    const other = buildWasm({
      funcs: [{ type: { params: [], results: ['i32'] }, body: [op.i32_const, 5] }],
      exports: [{ name: 'five', kind: 'func', index: 0 }],
    });
    expect(await call(p, 'five', [], 5000, other)).toMatchObject({ ok: true, value: 5 });
    expect(cache.size).toBe(2);
  });

  it('refuses binaries that break the host rules or do not compile, without running them', async () => {
    const p = pool(1);
    const importing = buildWasm({
      imports: [{ module: 'env', name: 'f', kind: 'func', type: { params: [], results: [] } }],
    });
    expect(await call(p, 'f', [], 5000, importing)).toMatchObject({ ok: false, code: 'wasm-imports' });
    // Valid sections, invalid body (i32.add with an empty stack): only the engine sees that.
    const badBody = buildWasm({ funcs: [{ type: { params: [], results: [] }, body: [op.i32_add] }], exports: [{ name: 'f', kind: 'func', index: 0 }] });
    const r = await call(p, 'f', [], 5000, badBody);
    expect(r).toMatchObject({ ok: false, code: 'wasm-invalid' });
    expect(r.ok ? '' : r.message).toMatch(/^the engine could not compile the module: /);
  });

  it('stops respawning when workers cannot start, and fails calls instead of looping', async () => {
    const p = new WasmPool({ size: 2, workerEntry: new URL('./no-such-worker.mjs', import.meta.url) });
    pools.push(p);
    const r = await call(p, 'bump');
    expect(r).toMatchObject({ ok: false, code: 'internal' });
    expect(r.ok ? '' : r.message).toMatch(/^WASM workers fail to start: /);
    expect(p.stats().started).toBeLessThanOrEqual(4);
    expect(await call(p, 'bump')).toMatchObject({ ok: false, code: 'internal' });
  });

  it('runs the committed geo reference module', async () => {
    const geo = new Uint8Array(readFileSync(new URL('../../packs/geo/wasm/geo.wasm', import.meta.url)));
    const p = pool(1);
    const r = await call(p, 'haversineRad', [0, 0, 0, 90], 5000, geo);
    expect(r.ok && r.value).toBeCloseTo(Math.PI / 2, 12);
    expect(await call(p, 'assertLatitude', [91], 5000, geo)).toMatchObject({ ok: false, code: 'wasm-trap', message: 'unreachable' });
    expect(await call(p, 'mercatorY', [0], 5000, geo)).toMatchObject({ ok: true, value: 0.5 });
  });

  it('answers calls after dispose with a tagged error and leaves no worker thread behind', async () => {
    // Warm up once so lazily created engine threads are already counted in the baseline.
    const warm = new WasmPool({ size: 2 });
    await call(warm, 'bump');
    await warm.dispose();
    const baseline = threadCount();
    for (let i = 0; i < 3; i++) {
      const p = new WasmPool({ size: 4 });
      await call(p, 'spin', [], 50); // one extra worker terminated and replaced per cycle
      const pending = call(p, 'spin', [], 5000);
      await p.dispose();
      expect(await pending).toMatchObject({ ok: false, code: 'internal' });
      expect(p.stats()).toMatchObject({ workers: 0, busy: 0, queued: 0 });
      expect(await call(p, 'bump')).toEqual({ ok: false, code: 'internal', message: 'the WASM pool has been shut down', runMs: 0 });
    }
    // 3 cycles × 5 workers would show up as 15 threads; allow engine housekeeping slack.
    expect(threadCount()).toBeLessThanOrEqual(baseline + 2);
  });

  it('starts its workers under plain `node --import tsx` too (not only under vitest)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'wasm-pool-node-'));
    try {
      const script = join(dir, 'run.mts');
      const poolPath = fileURLToPath(new URL('./wasm-pool.ts', import.meta.url));
      const geoPath = fileURLToPath(new URL('../../packs/geo/wasm/geo.wasm', import.meta.url));
      writeFileSync(
        script,
        [
          `import { readFileSync } from 'node:fs';`,
          `import { WasmPool } from ${JSON.stringify(poolPath)};`,
          'const pool = new WasmPool({ size: 1 });',
          `const r = await pool.call({ bytes: new Uint8Array(readFileSync(${JSON.stringify(geoPath)})), exportName: 'tileX', args: [13.4, 10], timeoutMs: 5000 });`,
          'await pool.dispose();',
          'console.log(JSON.stringify({ ok: r.ok, value: r.ok ? r.value : r.code }));',
        ].join('\n'),
      );
      const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', script], { cwd: fileURLToPath(new URL('../..', import.meta.url)) });
      expect(JSON.parse(stdout.trim())).toEqual({ ok: true, value: 550 });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('a small call completes while two callers hold both workers with spinning exports; idle workers then retire to keep', async () => {
    const p = new WasmPool({ size: 2, keep: 1, max: 3, idleMs: 200 });
    pools.push(p);
    const runs = [new AbortController(), new AbortController()];
    const spins = runs.map((run) => p.call({ bytes: stateful, exportName: 'spin', args: [], timeoutMs: 60_000, signal: run.signal }));
    let spinsSettled = 0;
    for (const spin of spins) void spin.then(() => spinsSettled++);
    for (let i = 0; i < 500 && p.stats().busy < 2; i++) await new Promise((r) => setTimeout(r, 10));
    expect(p.stats()).toMatchObject({ busy: 2 });
    // A third caller: a spare started beside the held workers answers it while both still spin.
    expect(await call(p, 'div', [9, 3])).toMatchObject({ ok: true, value: 3 });
    expect(spinsSettled).toBe(0);
    expect(p.stats()).toMatchObject({ workers: 3, busy: 2 });
    // The callers' runs end: their calls stop at once, their workers are terminated and not replaced.
    for (const run of runs) run.abort();
    expect((await Promise.all(spins)).map((r) => !r.ok && r.code)).toEqual(['timeout', 'timeout']);
    expect(p.stats()).toMatchObject({ workers: 1, replaced: 2 });
    expect(await call(p, 'div', [8, 2])).toMatchObject({ ok: true, value: 4 });
    // A burst of calls starts workers up to size; idle, they go back to keep.
    await Promise.all(Array.from({ length: 6 }, () => call(p, 'div', [4, 2])));
    expect(p.stats().workers).toBe(2);
    for (let i = 0; i < 500 && p.stats().workers > 1; i++) await new Promise((r) => setTimeout(r, 10));
    expect(p.stats()).toMatchObject({ workers: 1, retired: 1 });
  });
});
