// A run's WASM plan and a sandbox worker's WASM lanes, against real worker threads and the real
// engine: the plan compiles once per process and survives the structured clone a run message
// takes; the lanes keep no state between calls, answer through `block()` without an event-loop
// turn, replace a lane whose call timed out (the next call works), stop calls a closed dispatcher
// leaves running, and leave no thread behind. Then the same through the sandbox pool: lanes start
// on a worker's first WASM run and end with the pool.

import { readdirSync, readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { MessageChannel, receiveMessageOnPort } from 'node:worker_threads';
import { afterEach, describe, expect, it } from 'vitest';
import { buildWasm, op } from '../../../shared/testing/wasm-builder.ts';
import { validateWasmBinary } from '../../../shared/packs/wasm-binary.ts';
import type { ExecutableModule } from '../../../shared/protocol/catalog.ts';
import { NO_GRANTS } from '../../../shared/protocol/run.ts';
import { toKernelRequest } from '../../../shared/protocol/kernel-request.ts';
import { WASM_BRIDGE_MODULE_ID, WASM_BRIDGE_SPECIFIER } from '../../../shared/protocol/wasm-bridge.ts';
import { generateWasmFacade } from '../../../shared/packs/wasm-facade.ts';
import { ToWorkerSchema } from '../sandbox/messages.ts';
import { SandboxPool } from '../sandbox/sandbox-pool.ts';
import { WasmModuleCache } from './module-cache.ts';
import { buildWasmPlan, WasmLanes, WasmPlanSchema, type WasmPlan } from './wasm-plan.ts';
import { startRun } from '../../testing/started-run.ts';
import { NO_FREE_LANE } from '../../../shared/sandbox/wasm/wasm-dispatcher.ts';

const bytes = buildWasm({
  funcs: [
    // bump(): ++counter — 1 on every call if no instance state survives.
    { type: { params: [], results: ['i32'] }, body: [op.global_get, 0, op.i32_const, 1, op.i32_add, op.global_set, 0, op.global_get, 0] },
    // spin(): loop forever
    { type: { params: [], results: [] }, body: [op.loop, op.blocktype_empty, op.br, 0, op.end] },
    // add(a, b)
    { type: { params: ['i32', 'i32'], results: ['i32'] }, body: [op.local_get, 0, op.local_get, 1, op.i32_add] },
  ],
  globals: [{ type: 'i32', mutable: true, init: [op.i32_const, 0] }],
  exports: ['bump', 'spin', 'add'].map((name, index) => ({ name, kind: 'func' as const, index })),
});

function resolution(budgets: Record<string, number> = {}): { modules: Record<string, ExecutableModule> } {
  const validated = validateWasmBinary(bytes, { memoryPagesMax: 0, exports: ['bump', 'spin', 'add'] });
  if (!validated.ok) throw new Error(validated.message);
  const source = generateWasmFacade({ moduleId: 'wasm:t', exports: validated.value.exports });
  return {
    modules: {
      'wasm:t': {
        moduleId: 'wasm:t',
        kind: 'wasm',
        packName: '@t/wasm',
        packVersion: '1.0.0',
        displayName: '@t/wasm',
        source,
        imports: { [WASM_BRIDGE_SPECIFIER]: WASM_BRIDGE_MODULE_ID },
        digest: 'd'.repeat(64),
        wasm: { bytes, exports: validated.value.exports, memoryPagesMax: 0, budgets },
      },
    },
  };
}

/**
 * The thread count once libuv's thread pool is up: the pool starts its threads on its first piece
 * of work and keeps them for the process's life (Node 24 meets that first piece during these tests,
 * Node 20 earlier), so counted before it started they would read as threads the pool left behind.
 */
async function threadCountSettled(): Promise<number> {
  await readFile('/proc/self/status');
  return threadCount();
}

function threadCount(): number {
  return Number(/^Threads:\s+(\d+)/m.exec(readFileSync('/proc/self/status', 'utf8'))?.[1]);
}

async function until(check: () => boolean, ms = 5000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error('condition not reached in time');
    await new Promise((r) => setTimeout(r, 10));
  }
}

const owned: { dispose(): Promise<void> }[] = [];
afterEach(async () => {
  await Promise.all(owned.splice(0).map((o) => o.dispose()));
});

function lanes(size = 2, idleMs?: number): WasmLanes {
  const l = new WasmLanes(size, undefined, idleMs);
  owned.push(l);
  return l;
}

describe('buildWasmPlan', () => {
  it('compiles each binary once per process and survives the structured clone of a run message', async () => {
    const cache = new WasmModuleCache();
    const a = await buildWasmPlan(resolution(), cache);
    const b = await buildWasmPlan(resolution({ calls: 3 }), cache);
    expect(cache.size).toBe(1);
    expect(a.modules[0]?.compiled.ok && b.modules[0]?.compiled.ok && a.modules[0].compiled.module === b.modules[0].compiled.module).toBe(true);
    expect(b.modules[0]?.budgets).toEqual({ calls: 3 });
    const { port1, port2 } = new MessageChannel();
    port1.postMessage({ type: 'run', runId: 1, request: { code: '1', entries: {}, modules: {}, inputs: {}, grants: NO_GRANTS, timeoutMs: 1000 }, wasm: a });
    const received = receiveMessageOnPort(port2)?.message;
    port1.close();
    const parsed = ToWorkerSchema.safeParse(received);
    expect(parsed.success).toBe(true);
    expect(
      parsed.success &&
        parsed.data.type === 'run' &&
        parsed.data.wasm?.modules[0]?.compiled.ok &&
        parsed.data.wasm.modules[0].compiled.module instanceof WebAssembly.Module,
    ).toBe(true);
  });

  it('refuses a plan whose module is not a compiled WebAssembly.Module', () => {
    const forged = {
      modules: [
        { moduleId: 'm', displayName: 'm', exports: [], memoryPagesMax: 0, budgets: {}, compiled: { ok: true, digest: 'a'.repeat(64), module: bytes } },
      ],
    };
    expect(WasmPlanSchema.safeParse(forged).success).toBe(false);
  });

  it('carries a compile failure to the calls, not to the run', async () => {
    const cache = new WasmModuleCache();
    const broken = resolution();
    const mod = broken.modules['wasm:t'] as ExecutableModule & { wasm: NonNullable<ExecutableModule['wasm']> };
    broken.modules['wasm:t'] = { ...mod, wasm: { ...mod.wasm, bytes: new Uint8Array([0, 97, 115, 109, 1, 0, 0, 0, 1]) } };
    const plan = await buildWasmPlan(broken, cache);
    expect(plan.modules[0]?.compiled).toMatchObject({ ok: false, code: 'wasm-invalid' });
    const dispatcher = lanes().dispatcherFor(plan);
    expect(await dispatcher.bridge('wasm:t', 'add', [1, 2])).toMatchObject({ ok: false, code: 'wasm-invalid' });
    dispatcher.close();
  });
});

describe('WasmLanes', () => {
  async function plan(budgets: Record<string, number> = {}): Promise<WasmPlan> {
    return buildWasmPlan(resolution(budgets), new WasmModuleCache());
  }

  it('runs calls with an instance per call: a mutable global never survives', async () => {
    const l = lanes(1);
    const dispatcher = l.dispatcherFor(await plan());
    const bumps = [];
    for (let i = 0; i < 5; i++) bumps.push(await dispatcher.bridge('wasm:t', 'bump', []));
    expect(bumps).toEqual(Array.from({ length: 5 }, () => ({ ok: true, value: 1 })));
    expect(await dispatcher.bridge('wasm:t', 'add', [2, 40])).toEqual({ ok: true, value: 42 });
    dispatcher.close();
  });

  it('block() delivers a reply without an event-loop turn', async () => {
    const l = lanes(1);
    const dispatcher = l.dispatcherFor(await plan());
    await dispatcher.bridge('wasm:t', 'add', [0, 0]); // the lane is up
    let settled = false;
    const answer = dispatcher.bridge('wasm:t', 'add', [1, 2]).then((r) => {
      settled = true;
      return r;
    });
    expect(l.busy).toBe(true);
    // Only synchronous blocking and microtasks from here: no timer, no I/O callback can run.
    let delivered = false;
    for (let i = 0; i < 1000 && !delivered; i++) delivered = l.block(50);
    expect(delivered).toBe(true);
    for (let i = 0; i < 10 && !settled; i++) await Promise.resolve();
    expect(settled).toBe(true);
    expect(await answer).toEqual({ ok: true, value: 3 });
    expect(l.busy).toBe(false);
    expect(l.block(1)).toBe(false); // nothing in flight: nothing to deliver
    dispatcher.close();
  });

  it('terminates and replaces a lane whose call timed out; the next call works', async () => {
    const l = lanes(1);
    const dispatcher = l.dispatcherFor(await plan({ callTimeoutMs: 100 }));
    expect(await dispatcher.bridge('wasm:t', 'add', [1, 1])).toEqual({ ok: true, value: 2 });
    expect(await dispatcher.bridge('wasm:t', 'spin', [])).toMatchObject({ ok: false, code: 'wasm-timeout' });
    expect(await dispatcher.bridge('wasm:t', 'add', [2, 2])).toEqual({ ok: true, value: 4 });
    expect(l.workers).toBe(1);
    dispatcher.close();
  });

  it('a closed dispatcher stops its running call; dispose leaves no thread', async () => {
    const before = await threadCountSettled();
    const l = new WasmLanes(2);
    const dispatcher = l.dispatcherFor(await plan());
    // Two calls at once: the second starts the second lane (one is kept idle, more start on demand).
    await Promise.all([dispatcher.bridge('wasm:t', 'add', [1, 1]), dispatcher.bridge('wasm:t', 'add', [2, 2])]);
    expect(l.workers).toBe(2);
    expect(threadCount()).toBeGreaterThanOrEqual(before + 2);
    const running = dispatcher.bridge('wasm:t', 'spin', []);
    dispatcher.close();
    expect(await running).toMatchObject({ ok: false, code: 'timeout' });
    expect(await dispatcher.bridge('wasm:t', 'add', [1, 1])).toMatchObject({ ok: false, code: 'wasm-not-declared' });
    await l.dispose();
    await until(() => threadCount() <= before);
  });
  it.runIf(process.platform === 'linux')('runs a lane whose call spins at the lowest priority', async () => {
    const niceOf = (tid: string): number => {
      const stat = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
      return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16]);
    };
    const lowered = () => readdirSync('/proc/self/task').filter((tid) => niceOf(tid) === 19).length;
    const l = lanes(2);
    const dispatcher = l.dispatcherFor(await plan());
    expect(await dispatcher.bridge('wasm:t', 'add', [1, 1])).toEqual({ ok: true, value: 2 });
    expect(lowered()).toBe(0); // a short call is never lowered
    const spin = dispatcher.bridge('wasm:t', 'spin', []);
    await until(() => lowered() === 1);
    dispatcher.close();
    expect(await spin).toMatchObject({ ok: false, code: 'timeout' });
    await until(() => lowered() === 0); // the lowered lane was stopped, not reused
  });

  it('callNow, on a thread whose event loop does not turn, waits for a lane that is starting and answers on it', async () => {
    const l = lanes(1);
    const p = await plan();
    const dispatcher = l.dispatcherFor(p);
    expect(await dispatcher.bridge('wasm:t', 'add', [1, 1])).toEqual({ ok: true, value: 2 }); // the kept lane is up
    // A nested run's call that spins is stopped when the run is given back: its lane is terminated
    // and a replacement starts, while this thread goes on with a long run's poll (no event-loop turn).
    expect(dispatcher.callNow!('wasm:t', 'spin', [], 20, false)).toBeUndefined();
    dispatcher.close();
    const next = l.dispatcherFor(p);
    // Nothing from here lets the event loop turn: the replacement's `ready` is read by callNow itself.
    expect(next.callNow!('wasm:t', 'add', [2, 3], 10_000, false)).toEqual({ ok: true, value: 5 });
    expect(next.callNow!('wasm:t', 'add', [3, 4], 10_000, false)).toEqual({ ok: true, value: 7 });
    next.close();
  });

  it('callNow refuses at once, posting nothing, when no lane is free and none is starting', async () => {
    const l = lanes(1);
    const p = await plan();
    const holder = l.dispatcherFor(p);
    expect(await holder.bridge('wasm:t', 'add', [1, 1])).toEqual({ ok: true, value: 2 });
    const spin = holder.bridge('wasm:t', 'spin', []); // the only lane (size 1) is held
    const other = l.dispatcherFor(p);
    expect(other.callNow!('wasm:t', 'add', [2, 3], 10_000, false)).toBe(NO_FREE_LANE);
    expect(other.usage().calls).toBe(0);
    holder.close();
    expect(await spin).toMatchObject({ ok: false, code: 'timeout' });
    other.close();
  });

  it('starts lanes on demand up to its size, keeps one after idle, and a spare beside a spinning call', async () => {
    const l = lanes(2, 200);
    const dispatcher = l.dispatcherFor(await plan());
    expect(l.workers).toBe(1); // one lane kept, started with the first dispatcher
    await Promise.all([dispatcher.bridge('wasm:t', 'add', [1, 1]), dispatcher.bridge('wasm:t', 'add', [2, 2])]);
    expect(l.workers).toBe(2);
    await until(() => l.workers === 1);
    // A call that spins holds its lane: one spare starts beside it, and stays while it spins.
    const spin = dispatcher.bridge('wasm:t', 'spin', []);
    await until(() => l.workers === 2);
    expect(await dispatcher.bridge('wasm:t', 'add', [3, 4])).toEqual({ ok: true, value: 7 });
    dispatcher.close(); // the run ends: the spinning lane stops, and is not replaced
    expect(await spin).toMatchObject({ ok: false, code: 'timeout' });
    expect(l.workers).toBe(1);
    const next = l.dispatcherFor(await plan());
    expect(await next.bridge('wasm:t', 'add', [5, 5])).toEqual({ ok: true, value: 10 });
    expect(l.workers).toBe(1);
    next.close();
  });
});

describe('a sandbox worker with WASM lanes', () => {
  it('starts its kept lane with the worker (nested runs need one ready), answers the guest through its lanes, and ends them with the pool', async () => {
    const before = await threadCountSettled();
    const pool = new SandboxPool({ size: 1, wasmLanes: 2 });
    owned.push({ dispose: () => pool.close() });
    const res = resolution({ callTimeoutMs: 200 });
    const { wasm: _bytes, ...guest } = res.modules['wasm:t'] as ExecutableModule;
    const request = (code: string) => ({
      code,
      entries: { '@t/wasm': 'wasm:t' },
      modules: { 'wasm:t': guest },
      inputs: {},
      grants: NO_GRANTS,
      timeoutMs: 5000,
    });
    const plain = await pool.run({ ...request('return 1;'), entries: {}, modules: {} });
    expect(plain).toMatchObject({ ok: true, value: 1 });
    // The worker's kept lane is already up (wasm-plan.ts `warm`).
    const withKeptLane = threadCount();
    const plan = await buildWasmPlan(res, new WasmModuleCache());
    const code = [
      'import { add, bump, spin } from "@t/wasm";',
      'let timedOut;',
      'try { await spin(); } catch (e) { timedOut = e.code; }',
      'return [await add(20, 22), await bump(), await bump(), timedOut, await add(1, 2)];',
    ].join('\n');
    const first = await pool.run(request(code), { wasm: { plan } });
    expect(first).toMatchObject({ ok: true, value: [42, 1, 1, 'wasm-timeout', 3] });
    // The timed-out lane was stopped; the spare started beside it while it spun serves the rest.
    await until(() => threadCount() >= withKeptLane);
    const second = await pool.run(request('import { add } from "@t/wasm";\nreturn await add(2, 3);'), { wasm: { plan } });
    expect(second).toMatchObject({ ok: true, value: 5 });
    await pool.close();
    await until(() => threadCount() <= before);
  });

  it('a run awaiting a small WASM export completes while two runs hold WASM lanes with spinning exports', async () => {
    const before = await threadCountSettled();
    // Two workers kept, one more at most: the spinning runs hold both, the small run needs the third.
    const pool = new SandboxPool({ size: 2, maxWorkers: 3 });
    owned.push({ dispose: () => pool.close() });
    const res = resolution();
    const request = (code: string, timeoutMs = 30_000) =>
      toKernelRequest({ code, resolution: { entries: { '@t/wasm': 'wasm:t' }, modules: res.modules }, timeoutMs });
    const ports = { wasm: { plan: await buildWasmPlan(res, new WasmModuleCache()) } };
    // The two spinning runs: one spins one export, the other two at once (its whole concurrency
    // budget), each again after every call timeout, until its run is stopped.
    const again = (calls: string) => `import { spin } from "@t/wasm";\nfor (;;) await Promise.allSettled([${calls}]);`;
    const spinners = [startRun(pool, request(again('spin()')), ports), startRun(pool, request(again('spin(), spin()')), ports)];
    const small = await pool.run(request('import { add } from "@t/wasm";\nreturn await add(20, 22);'), ports);
    expect(small).toMatchObject({ ok: true, value: 42 });
    expect(spinners.filter((s) => s.answered)).toEqual([]);
    for (const s of spinners) s.stop.abort();
    expect((await Promise.all(spinners.map((s) => s.result))).map((r) => !r.ok && r.code)).toEqual(['cancelled', 'cancelled']);
    const after = await Promise.all(
      Array.from({ length: 4 }, (_, i) => pool.run(request(`import { add } from "@t/wasm";\nreturn await add(${i}, 1);`), ports)),
    );
    expect(after.map((r) => r.ok && r.value)).toEqual([1, 2, 3, 4]);
    await pool.close();
    await until(() => threadCount() <= before);
  });
});
