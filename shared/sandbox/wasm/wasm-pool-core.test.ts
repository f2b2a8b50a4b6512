// The pool core's rules, driven through scripted in-process workers and a manual clock so each
// branch is reached on purpose: replies a real worker never sends (malformed, late, `missing`),
// exactly when a call's timer starts, and which deaths count toward the start-failure cap. Real
// workers — timeouts that terminate a spinning thread, aborts, leaks — are tested through the Node
// pool in electron/runtime/wasm/wasm-pool.test.ts.

import { describe, expect, it } from 'vitest';
import { fail, ok } from '../../protocol/result.ts';
import type { WasmPoolRequest } from './wasm-dispatcher.ts';
import { MAX_START_FAILURES, WasmPoolCore, type WasmPoolTimers, type WasmPoolWorker, type WasmPoolWorkerHooks } from './wasm-pool-core.ts';

interface ScriptedWorker extends WasmPoolWorker {
  readonly hooks: WasmPoolWorkerHooks;
  readonly posted: Record<string, unknown>[];
  terminated: boolean;
}

function manualClock(): WasmPoolTimers & { advance(ms: number): void; pending(): number } {
  let now = 0;
  let nextHandle = 1;
  const timers = new Map<number, { at: number; run: () => void }>();
  return {
    setTimeout: (run, ms) => {
      timers.set(nextHandle, { at: now + ms, run });
      return nextHandle++;
    },
    clearTimeout: (handle) => void timers.delete(handle as number),
    advance(ms) {
      now += ms;
      for (const [handle, t] of [...timers]) {
        if (t.at > now) continue;
        timers.delete(handle);
        t.run();
      }
    },
    pending: () => timers.size,
    now: () => now,
  };
}

function setup(
  size = 1,
  shape: Pick<ConstructorParameters<typeof WasmPoolCore<string, ScriptedWorker>>[0], 'keep' | 'max' | 'idleMs' | 'heldMs' | 'held'> = {},
) {
  const workers: ScriptedWorker[] = [];
  const clock = manualClock();
  const terminations: (() => void)[] = [];
  const core = new WasmPoolCore<string, ScriptedWorker>({
    size,
    ...shape,
    startWorker: (hooks) => {
      const worker: ScriptedWorker = {
        hooks,
        posted: [],
        terminated: false,
        postMessage: (message) => worker.posted.push(message as Record<string, unknown>),
        terminate: () => {
          worker.terminated = true;
          return new Promise<void>((resolve) => terminations.push(resolve));
        },
      };
      workers.push(worker);
      return worker;
    },
    prepare: async (bytes) => (bytes.length ? ok({ digest: `d${bytes.length}`, module: `module-${bytes.length}` }) : fail('wasm-invalid', 'empty')),
    moduleFields: (module) => ({ module }),
    timers: clock,
  });
  /** The i-th worker started, in start order (replacements included). */
  const worker = (i: number): ScriptedWorker => {
    const w = workers[i];
    if (!w) throw new Error(`worker ${i} was never started`);
    return w;
  };
  return { core, workers, worker, clock, terminations };
}

const request = (exportName = 'f', timeoutMs = 100, bytes = new Uint8Array(3)): WasmPoolRequest => ({ bytes, exportName, args: [1], timeoutMs });
/** Lets `call()` get past its awaited prepare step and queue its job. */
const settle = () => new Promise((r) => setTimeout(r, 0));

describe('WasmPoolCore', () => {
  it('posts a module once per worker and again when the worker reports it missing', async () => {
    const { core, worker } = setup();
    const w = worker(0);
    w.hooks.message({ type: 'ready' });
    const first = core.call(request());
    await settle();
    expect(w.posted).toEqual([{ type: 'call', id: 1, digest: 'd3', exportName: 'f', args: [1], module: 'module-3' }]);
    w.hooks.message({ type: 'result', id: 1, ok: true, value: 7, runMs: 2 });
    expect(await first).toEqual({ ok: true, value: 7, runMs: 2 });

    const second = core.call(request('g'));
    await settle();
    expect(w.posted[1]).toEqual({ type: 'call', id: 2, digest: 'd3', exportName: 'g', args: [1] });
    w.hooks.message({ type: 'missing', id: 2 });
    expect(w.posted[2]).toEqual({ type: 'call', id: 2, digest: 'd3', exportName: 'g', args: [1], module: 'module-3' });
    w.hooks.message({ type: 'result', id: 2, ok: false, code: 'wasm-trap', message: 'unreachable', runMs: 1 });
    expect(await second).toEqual({ ok: false, code: 'wasm-trap', message: 'unreachable', runMs: 1 });
    expect(core.stats()).toEqual({ workers: 1, ready: 1, busy: 0, queued: 0, started: 1, replaced: 0, retired: 0 });
  });

  it('answers a preparation failure without queueing the call', async () => {
    const { core, worker } = setup();
    worker(0).hooks.message({ type: 'ready' });
    expect(await core.call(request('f', 100, new Uint8Array(0)))).toEqual({ ok: false, code: 'wasm-invalid', message: 'empty', runMs: 0 });
    expect(worker(0).posted).toEqual([]);
  });

  it('fails the call and replaces the worker on a malformed reply; a late reply is ignored', async () => {
    const { core, workers, worker } = setup();
    const w = worker(0);
    w.hooks.message({ type: 'ready' });
    const pending = core.call(request());
    await settle();
    w.hooks.message({ type: 'result', id: 99, ok: true, runMs: 0 }); // not the running call: ignored
    expect(core.stats().busy).toBe(1);
    w.hooks.message({ type: 'result', id: 1, ok: true, value: 'seven', runMs: 0 });
    expect(await pending).toEqual({ ok: false, code: 'internal', message: 'the WASM worker sent a malformed reply', runMs: 0 });
    expect(w.terminated).toBe(true);
    expect(workers).toHaveLength(2);
    expect(core.stats()).toMatchObject({ workers: 1, started: 2, replaced: 1 });
    w.hooks.message({ type: 'ready' }); // the retired worker no longer counts
    expect(core.stats().ready).toBe(0);
  });

  it('starts a call timer only when a ready worker receives the call, and replaces the worker when it fires', async () => {
    const { core, worker, clock } = setup();
    const pending = core.call(request('spin', 100));
    await settle();
    clock.advance(1_000); // queued behind a worker that is still starting: no timer yet
    expect(clock.pending()).toBe(0);
    expect(core.stats()).toMatchObject({ queued: 1, busy: 0 });
    worker(0).hooks.message({ type: 'ready' });
    expect(clock.pending()).toBe(1);
    clock.advance(99);
    expect(core.stats().busy).toBe(1);
    clock.advance(1);
    expect(await pending).toEqual({ ok: false, code: 'wasm-timeout', message: '`spin` ran longer than its 100 ms limit and was stopped', runMs: 100 });
    expect(worker(0).terminated).toBe(true);
    expect(core.stats()).toMatchObject({ workers: 1, ready: 0, started: 2, replaced: 1 });
    worker(0).hooks.message({ type: 'result', id: 1, ok: true, runMs: 100 }); // too late, and from a retired worker
    expect(core.stats().busy).toBe(0);
  });

  it(`stops respawning after ${MAX_START_FAILURES} workers in a row die before they are ready`, async () => {
    const { core, workers, worker } = setup();
    // A worker that was ready once and then crashed does not count toward the cap.
    worker(0).hooks.message({ type: 'ready' });
    worker(0).hooks.failed('crashed');
    for (let i = 1; i <= MAX_START_FAILURES; i++) worker(i).hooks.failed(`boot ${i} failed`);
    expect(workers).toHaveLength(1 + MAX_START_FAILURES);
    expect(core.stats()).toMatchObject({ workers: 0, started: 1 + MAX_START_FAILURES });
    expect(await core.call(request())).toEqual({
      ok: false,
      code: 'internal',
      message: `WASM workers fail to start: boot ${MAX_START_FAILURES} failed`,
      runMs: 0,
    });
  });

  it('dispose fails queued and running calls and resolves only once every worker has terminated', async () => {
    const { core, worker, terminations, clock } = setup(2);
    worker(0).hooks.message({ type: 'ready' });
    const running = core.call(request('a'));
    const queued = [core.call(request('b')), core.call(request('c'))];
    await settle();
    expect(core.stats()).toMatchObject({ busy: 1, queued: 2 });
    let disposed = false;
    const disposing = core.dispose().then(() => (disposed = true));
    expect(await running).toEqual({ ok: false, code: 'internal', message: 'the WASM pool was shut down during the call', runMs: 0 });
    for (const q of queued) expect(await q).toEqual({ ok: false, code: 'internal', message: 'the WASM pool was shut down before the call ran', runMs: 0 });
    expect(clock.pending()).toBe(0);
    await settle();
    expect(disposed).toBe(false);
    for (const done of terminations) done();
    await disposing;
    expect(core.stats()).toMatchObject({ workers: 0, busy: 0, queued: 0 });
    expect(await core.call(request())).toEqual({ ok: false, code: 'internal', message: 'the WASM pool has been shut down', runMs: 0 });
  });

  describe('between keep and max', () => {
    /** Readies every started worker not yet ready and not terminated. */
    const readyAll = (workers: ScriptedWorker[], readied: Set<ScriptedWorker>) => {
      for (const w of workers) {
        if (w.terminated || readied.has(w)) continue;
        readied.add(w);
        w.hooks.message({ type: 'ready' });
      }
    };
    const answer = (w: ScriptedWorker, value: number) => {
      const id = w.posted.at(-1)?.id as number;
      w.hooks.message({ type: 'result', id, ok: true, value, runMs: 0 });
    };

    it('starts `keep` workers, more for queued calls up to `size`, and retires idle ones beyond `keep`', async () => {
      const { core, workers, clock } = setup(2, { keep: 1, max: 3, idleMs: 1000, heldMs: 50 });
      const readied = new Set<ScriptedWorker>();
      expect(workers).toHaveLength(1);
      readyAll(workers, readied);
      const calls = [core.call(request('a')), core.call(request('b')), core.call(request('c'))];
      await settle();
      // One runs, two wait: one more worker starts (up to size 2), not two.
      expect(core.stats()).toMatchObject({ workers: 2, busy: 1, queued: 2 });
      readyAll(workers, readied);
      expect(core.stats()).toMatchObject({ workers: 2, busy: 2, queued: 1 });
      answer(workers[0]!, 1);
      answer(workers[1]!, 2);
      answer(workers[0]!, 3);
      expect(await Promise.all(calls)).toEqual([1, 2, 3].map((value) => ({ ok: true, value, runMs: 0 })));
      expect(core.stats()).toMatchObject({ workers: 2, busy: 0, retired: 0 });
      clock.advance(999);
      expect(core.stats().workers).toBe(2);
      clock.advance(1);
      expect(core.stats()).toMatchObject({ workers: 1, retired: 1, replaced: 0 });
      expect(workers.filter((w) => w.terminated)).toHaveLength(1);
      clock.advance(10_000);
      expect(core.stats().workers).toBe(1); // never below keep
      expect(clock.pending()).toBe(0);
    });

    it('starts one spare beside a call held past heldMs: another caller runs on it while the held call goes on', async () => {
      const { core, workers, clock } = setup(1, { keep: 1, max: 2, heldMs: 50, idleMs: 1000 });
      const readied = new Set<ScriptedWorker>();
      readyAll(workers, readied);
      const spinner = new AbortController();
      const held = core.call({ ...request('spin', 5000), signal: spinner.signal });
      await settle();
      clock.advance(49);
      expect(workers).toHaveLength(1);
      clock.advance(1);
      expect(workers).toHaveLength(2); // the spare, started while nobody waits yet
      readyAll(workers, readied);
      let heldSettled = false;
      void held.then(() => (heldSettled = true));
      const other = core.call(request('small'));
      await settle();
      expect(workers[1]!.posted).toHaveLength(1);
      answer(workers[1]!, 5);
      expect(await other).toEqual({ ok: true, value: 5, runMs: 0 });
      expect(heldSettled).toBe(false);
      // The spare is kept beside the held call however long it idles.
      clock.advance(5_000 - 51);
      expect(core.stats()).toMatchObject({ workers: 2, busy: 1, retired: 0 });
      // The held call's run ends: its worker is stopped and, with `keep` met by the spare, not replaced.
      spinner.abort();
      expect(await held).toMatchObject({ ok: false, code: 'timeout' });
      expect(workers[0]!.terminated).toBe(true);
      expect(core.stats()).toMatchObject({ workers: 1, ready: 1, started: 2, replaced: 1 });
      expect(workers).toHaveLength(2);
    });

    it('starts no spare past max, and replaces a stopped worker while below keep', async () => {
      const { core, workers, clock } = setup(2, { keep: 2, max: 2, heldMs: 50 });
      const readied = new Set<ScriptedWorker>();
      readyAll(workers, readied);
      const runs = [new AbortController(), new AbortController()];
      const spins = runs.map((r) => core.call({ ...request('spin', 5000), signal: r.signal }));
      await settle();
      clock.advance(100);
      expect(workers).toHaveLength(2);
      const waiting = core.call(request('small'));
      await settle();
      expect(core.stats()).toMatchObject({ workers: 2, busy: 2, queued: 1 });
      runs[0]!.abort(); // the first run ends: its worker stopped, a replacement starts (below keep)
      expect(await spins[0]).toMatchObject({ ok: false, code: 'timeout' });
      expect(workers).toHaveLength(3);
      readyAll(workers, readied);
      answer(workers[2]!, 9);
      expect(await waiting).toEqual({ ok: true, value: 9, runMs: 0 });
      runs[1]!.abort();
      await spins[1];
      expect(core.stats()).toMatchObject({ workers: 2, replaced: 2, started: 4 });
    });

    it('tells `held` once per held call, with the thread id the worker reported; a worker it cannot restore retires after its call', async () => {
      const told: [ScriptedWorker, number | undefined][] = [];
      const restorable: boolean[] = [true, false];
      const { core, workers, clock } = setup(1, {
        keep: 1,
        max: 1,
        heldMs: 50,
        held: (worker, tid) => {
          told.push([worker, tid]);
          const answer = restorable.shift() as boolean;
          return () => answer;
        },
      });
      workers[0]!.hooks.message({ type: 'ready', tid: 4242 });
      const slow = core.call(request('slow', 5000));
      await settle();
      clock.advance(10);
      expect(told).toEqual([]); // not held yet: nothing lowered
      clock.advance(40);
      clock.advance(500);
      expect(told).toEqual([[workers[0], 4242]]); // once, however long it runs
      answer(workers[0]!, 1);
      expect(await slow).toMatchObject({ ok: true, value: 1 });
      expect(core.stats()).toMatchObject({ workers: 1, replaced: 0 }); // restored: kept
      const again = core.call(request('slow', 5000));
      await settle();
      clock.advance(50);
      expect(told).toHaveLength(2);
      answer(workers[0]!, 2);
      expect(await again).toMatchObject({ ok: true, value: 2 });
      // Not restorable: the lowered worker never serves another call.
      expect(workers[0]!.terminated).toBe(true);
      expect(core.stats()).toMatchObject({ workers: 1, replaced: 1, started: 2 });
      // A short call is never told.
      workers[1]!.hooks.message({ type: 'ready' });
      const quick = core.call(request('quick'));
      await settle();
      answer(workers[1]!, 3);
      expect(await quick).toMatchObject({ ok: true, value: 3 });
      clock.advance(1000);
      expect(told).toHaveLength(2);
    });
  });
});
