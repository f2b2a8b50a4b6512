// The kernel host core under long runs (issue 17), through scripted workers and fake timers so
// each rule is reached on purpose: an extra worker starts in place of a long run, never past
// `maxWorkers`, and retires once idle; a long run that keeps running guest code is held while a
// shorter one runs and released when it ends, one that makes no interrupt polls is not; held runs
// take turns on the free cores, least-run first; the watchdog adds back the time a run was held. Real threads holding real runs are tested through the Node pool
// (electron/runtime/sandbox/sandbox-pool.fairness.test.ts).

import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { NO_GRANTS, type KernelRunRequest } from '../protocol/run.ts';
import { KernelHostCore, type KernelWorker, type KernelWorkerHooks } from './kernel-host-core.ts';

interface ScriptedWorker extends KernelWorker {
  readonly hooks: KernelWorkerHooks;
  readonly posted: Record<string, unknown>[];
  terminated: boolean;
  /** The hold switch's state as the core last set it. */
  held: boolean;
  /** What the worker reports as held so far. */
  heldMs: number;
  /** What the worker reports as interrupt polls so far. */
  polls: number;
}

const request: KernelRunRequest = { code: '1', entries: {}, modules: {}, inputs: {}, grants: NO_GRANTS, timeoutMs: 1000 };
const receipt = { wallMs: 1, modules: [], calls: [], denied: [] };

function setup(options: { size: number; maxWorkers: number; hold?: boolean; idleRetireMs?: number }) {
  const workers: ScriptedWorker[] = [];
  const core = new KernelHostCore<undefined>({
    size: options.size,
    maxWorkers: options.maxWorkers,
    longRunMs: 30,
    holdAfterPolls: 50,
    idleRetireMs: options.idleRetireMs ?? 1000,
    graceMs: 0,
    startWorker: (hooks) => {
      const worker: ScriptedWorker = {
        hooks,
        posted: [],
        terminated: false,
        held: false,
        heldMs: 0,
        polls: 0,
        postMessage: (message) => worker.posted.push(message as Record<string, unknown>),
        terminate: () => {
          worker.terminated = true;
        },
        ...(options.hold
          ? {
              hold: {
                set: (held: boolean) => {
                  worker.held = held;
                },
                heldMs: () => worker.heldMs,
                polls: () => worker.polls,
                reset: () => {
                  worker.held = false;
                  worker.heldMs = 0;
                  worker.polls = 0;
                },
              },
            }
          : {}),
      };
      workers.push(worker);
      return worker;
    },
    runMessage: (runId, req) => ({ type: 'run', runId, request: req }),
    answer: async () => ({ ok: true, value: null }),
    wording: { crashed: (why) => why, cannotStart: (why) => why, closedQueued: 'closed queued', closedRunning: 'closed running', side: 'test host' },
  });
  const live = () => workers.filter((w) => !w.terminated);
  const readyAll = () => {
    for (const w of live()) if (!w.posted.length) w.hooks.message({ type: 'ready' });
  };
  const runIdOf = (worker: ScriptedWorker) => worker.posted.findLast((m) => m.type === 'run')?.runId as number;
  const finish = (worker: ScriptedWorker, value: unknown) =>
    worker.hooks.message({ type: 'done', runId: runIdOf(worker), healthy: true, result: { ok: true, value, logs: [], receipt } });
  const busy = (worker: ScriptedWorker) => worker.posted.some((m) => m.type === 'run');
  return { core, workers, live, readyAll, finish, busy };
}

beforeEach(() => {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
});
afterEach(() => {
  vi.useRealTimers();
});

describe('kernel host core: long runs', () => {
  it('starts an extra worker in place of a long run, never past maxWorkers, and retires extra workers once idle', async () => {
    const { core, workers, live, readyAll, finish } = setup({ size: 1, maxWorkers: 3 });
    readyAll();
    const runs = Array.from({ length: 5 }, (_, i) => core.run({ ...request, code: String(i) }, undefined));
    expect(workers).toHaveLength(1);
    for (let i = 0; i < 4; i++) {
      vi.advanceTimersByTime(30);
      readyAll();
    }
    expect(core.workerCount).toBe(3);
    expect(workers).toHaveLength(3);
    // Three long runs on three workers, two still queued: the cap holds.
    for (const w of live()) finish(w, 'done');
    readyAll();
    for (const w of live()) if (w.posted.filter((m) => m.type === 'run').length === 2) finish(w, 'done');
    const answered = await Promise.all(runs);
    expect(answered.map((r) => r.ok)).toEqual([true, true, true, true, true]);
    expect(core.workerCount).toBe(3);
    vi.advanceTimersByTime(1000);
    expect(core.workerCount).toBe(1);
    expect(workers.filter((w) => w.terminated)).toHaveLength(2);
    await core.close();
    expect(core.workerCount).toBe(0);
  });

  it('holds a long run that keeps running guest code while a shorter one runs, and lets it go when the shorter one ends', async () => {
    const { core, workers, readyAll, finish } = setup({ size: 1, maxWorkers: 3, hold: true });
    readyAll();
    const long = core.run(request, undefined);
    const [first] = workers as [ScriptedWorker];
    vi.advanceTimersByTime(30);
    readyAll();
    // Long, but no interrupt polls (waiting, or inside one native call): holding it would stop nothing.
    const waiting = core.run({ ...request, code: '2' }, undefined);
    expect(first.held).toBe(false);
    finish(workers[1] as ScriptedWorker, 2);
    expect(await waiting).toMatchObject({ ok: true, value: 2 });
    first.polls = 50;
    vi.advanceTimersByTime(100);
    // Running guest code, and nothing else running: one core free, so it goes on.
    expect(first.held).toBe(false);
    const short = core.run({ ...request, code: '3' }, undefined);
    expect(first.held).toBe(true);
    finish(workers[1] as ScriptedWorker, 3);
    expect(await short).toMatchObject({ ok: true, value: 3 });
    expect(first.held).toBe(false);
    finish(first, 1);
    expect(await long).toMatchObject({ ok: true, value: 1 });
    await core.close();
  });

  /** One core, two runs gone long (each on its own worker; a third worker stands in for them). */
  function twoLongRuns() {
    const { core, workers, readyAll } = setup({ size: 1, maxWorkers: 4, hold: true });
    readyAll();
    const runs = [core.run(request, undefined)];
    vi.advanceTimersByTime(30);
    readyAll();
    runs.push(core.run(request, undefined));
    vi.advanceTimersByTime(30);
    readyAll();
    return { core, runs, workers };
  }

  it('gives a core to a long run that polls no guest code by time run, unless it waits on a host call', async () => {
    const { core, runs, workers } = twoLongRuns();
    const [loop, native] = workers as [ScriptedWorker, ScriptedWorker];
    loop.polls = 50;
    vi.advanceTimersByTime(100);
    // `native` makes no polls (allocating, or in one engine call), waits on nothing and has run less: it has the core.
    expect([loop.held, native.held]).toEqual([true, false]);
    native.hooks.message({
      type: 'host-call',
      runId: native.posted.findLast((m) => m.type === 'run')?.runId,
      callId: 1,
      kind: 'capability',
      name: 'fetch',
      args: [],
    });
    vi.advanceTimersByTime(100);
    // Now it waits on the host: the core is free again.
    expect(loop.held).toBe(false);
    await core.close();
    expect((await Promise.all(runs)).map((r) => r.ok)).toEqual([false, false]);
  });

  it('lets held runs take turns on the free cores, least-run first', async () => {
    const { core, runs, workers } = twoLongRuns();
    const [a, b] = workers as [ScriptedWorker, ScriptedWorker];
    a.polls = 50;
    b.polls = 50;
    vi.advanceTimersByTime(100);
    // Both holdable, one core: the one that has run less goes on.
    expect([a.held, b.held]).toEqual([true, false]);
    // b runs while a is held: a's held time keeps its count of time run below b's.
    a.heldMs = 100;
    vi.advanceTimersByTime(100);
    expect([a.held, b.held]).toEqual([false, true]);
    await core.close();
    expect((await Promise.all(runs)).map((r) => r.ok)).toEqual([false, false]);
  });

  it('adds the time a run was held to its watchdog, and ends it once that is spent', async () => {
    const { core, workers, readyAll, finish } = setup({ size: 1, maxWorkers: 1, hold: true });
    readyAll();
    const [worker] = workers as [ScriptedWorker];
    const answered = core.run({ ...request, timeoutMs: 50 }, undefined);
    worker.heldMs = 40;
    vi.advanceTimersByTime(50);
    expect(worker.terminated).toBe(false);
    vi.advanceTimersByTime(39);
    finish(worker, 'in time');
    expect(await answered).toMatchObject({ ok: true, value: 'in time' });

    const late = core.run({ ...request, timeoutMs: 50 }, undefined);
    worker.heldMs = 40;
    vi.advanceTimersByTime(90);
    expect(await late).toMatchObject({ ok: false, code: 'timeout', message: 'The code ran longer than its 50 ms time limit and was stopped.' });
    expect(worker.terminated).toBe(true);
    await core.close();
  });
});
