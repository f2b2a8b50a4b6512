// The kernel host core applying the fair scheduler's decisions under long runs (issue 17), through
// scripted workers and fake timers so each rule is reached on purpose, the core's timers
// included: an extra worker starts in place of a long run, never past `maxWorkers`, and retires once
// idle; a long run that keeps running guest code is held while a shorter one runs and released
// when it ends, one that makes no interrupt polls is not; held runs take turns on the free cores,
// least-run first, once short work has been quiet for a moment; the watchdog adds back the time a
// run was held. The rules alone are tables in fair-scheduler.test.ts; real threads holding real
// runs are tested through the Node pool (electron/runtime/sandbox/sandbox-pool.fairness.test.ts).

import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { NO_GRANTS, type KernelRunRequest } from '../../protocol/run.ts';
import { fairScheduler } from './fair-scheduler.ts';
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
  /** Times the core rang the worker (a nested run posted). */
  rung: number;
  /** What the worker reports as time since its run last polled. */
  sincePollMs: number;
}

const request: KernelRunRequest = { code: '1', entries: {}, modules: {}, inputs: {}, grants: NO_GRANTS, timeoutMs: 1000 };
const receipt = { wallMs: 1, modules: [], calls: [], denied: [] };

function setup(options: { size: number; maxWorkers: number; hold?: boolean; idleRetireMs?: number; nest?: boolean }) {
  const workers: ScriptedWorker[] = [];
  const pressures: boolean[] = [];
  const core = new KernelHostCore<undefined>({
    size: options.size,
    scheduler: fairScheduler({ maxWorkers: options.maxWorkers, longRunMs: 30, holdAfterPolls: 50, idleRetireMs: options.idleRetireMs ?? 1000 }),
    graceMs: 0,
    startWorker: (hooks) => {
      const worker: ScriptedWorker = {
        hooks,
        posted: [],
        terminated: false,
        held: false,
        heldMs: 0,
        polls: 0,
        rung: 0,
        sincePollMs: 0,
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
                ring: () => {
                  worker.rung++;
                },
                sincePollMs: () => worker.sincePollMs,
              },
            }
          : {}),
      };
      workers.push(worker);
      return worker;
    },
    runMessage: (runId, req) => ({ type: 'run', runId, request: req }),
    ...(options.nest ? { nestedRunMessage: (runId: number, req: KernelRunRequest) => ({ type: 'run', runId, request: req, nested: true }) } : {}),
    pressure: (on) => pressures.push(on),
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
  return { core, workers, live, readyAll, finish, busy, pressures };
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
    // Let go once short work has been quiet a while (the next request may be on its way).
    expect(first.held).toBe(true);
    vi.advanceTimersByTime(20);
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

describe('kernel host core: runs nested in a long run', () => {
  const done = (runId: unknown, value: unknown) => ({ type: 'done', runId, healthy: true, result: { ok: true, value, logs: [], receipt } });
  const runIds = (worker: ScriptedWorker, nested: boolean) =>
    worker.posted.filter((m) => m.type === 'run' && (m.nested === true) === nested).map((m) => m.runId);

  /** One worker (that may add up to `maxWorkers`), its run polling guest code. */
  function spinning(maxWorkers = 1) {
    const setUp = setup({ size: 1, maxWorkers, hold: true, nest: true });
    setUp.readyAll();
    const long = setUp.core.run(request, undefined);
    const worker = setUp.workers[0] as ScriptedWorker;
    return { ...setUp, long, worker };
  }

  it('sends a queued run to a worker whose run polls guest code, rings it, and answers it from there', async () => {
    const { core, worker, long } = spinning();
    const short = core.run({ ...request, code: '2' }, undefined);
    // Not polling yet (waiting, or inside one native call): nothing is nested.
    expect(runIds(worker, true)).toEqual([]);
    worker.polls = 50;
    worker.sincePollMs = 50;
    vi.advanceTimersByTime(5);
    // Polling, but not lately: still nothing.
    expect(runIds(worker, true)).toEqual([]);
    worker.sincePollMs = 0;
    vi.advanceTimersByTime(5);
    const [nestedId] = runIds(worker, true);
    expect(nestedId).toBeDefined();
    expect(worker.rung).toBe(1);
    worker.hooks.message(done(nestedId, 2));
    expect(await short).toMatchObject({ ok: true, value: 2 });
    worker.hooks.message(done(runIds(worker, false)[0], 1));
    expect(await long).toMatchObject({ ok: true, value: 1 });
    await core.close();
  });

  it('queues a run given back again, to run as usual once the worker is free, and nests the next one meanwhile', async () => {
    const { core, worker, long } = spinning();
    worker.polls = 50;
    const [greedy, short] = [core.run({ ...request, code: 'greedy' }, undefined), core.run({ ...request, code: 'short' }, undefined)];
    const [greedyId] = runIds(worker, true);
    worker.hooks.message({ type: 'requeue', runId: greedyId, nestable: false });
    vi.advanceTimersByTime(5);
    const [, shortId] = runIds(worker, true);
    expect(shortId).toBeDefined();
    worker.hooks.message(done(shortId, 'short'));
    expect(await short).toMatchObject({ ok: true, value: 'short' });
    worker.hooks.message(done(runIds(worker, false)[0], 1));
    expect(await long).toMatchObject({ ok: true, value: 1 });
    // Not nestable any more: it goes to the free worker as its own run.
    expect(runIds(worker, false)).toEqual([runIds(worker, false)[0], greedyId]);
    worker.hooks.message(done(greedyId, 'greedy'));
    expect(await greedy).toMatchObject({ ok: true, value: 'greedy' });
    await core.close();
  });

  it('a run given back for want of a free WASM lane tries three times at most, and the worker stays open to other nested runs', async () => {
    const { core, worker, long } = spinning();
    worker.polls = 50;
    const [wasmy, plain] = [core.run({ ...request, code: 'wasmy' }, undefined), core.run({ ...request, code: 'plain' }, undefined)];
    const nestedIds = () => runIds(worker, true);
    const [wasmyId] = nestedIds();
    // Given back three times: no lane free here. Each time it is queued first again.
    for (let tries = 1; tries <= 3; tries++) {
      expect(nestedIds()).toEqual(Array(tries).fill(wasmyId));
      worker.hooks.message({ type: 'requeue', runId: wasmyId, nestable: true, noLane: true });
      vi.advanceTimersByTime(5);
    }
    // Then it waits for a worker of its own, and this worker, not refused, takes the plain run nested
    // (a worker with no sandbox ready is refused every nested run for the rest of its long run).
    const plainId = nestedIds().at(-1);
    expect(nestedIds()).toHaveLength(4);
    expect(plainId).not.toBe(wasmyId);
    worker.hooks.message(done(plainId, 'plain'));
    expect(await plain).toMatchObject({ ok: true, value: 'plain' });
    vi.advanceTimersByTime(50);
    expect(nestedIds().filter((id) => id === wasmyId)).toHaveLength(3);
    worker.hooks.message(done(runIds(worker, false)[0], 1));
    expect(await long).toMatchObject({ ok: true, value: 1 });
    expect(runIds(worker, false).at(-1)).toBe(wasmyId);
    worker.hooks.message(done(wasmyId, 'wasmy'));
    expect(await wasmy).toMatchObject({ ok: true, value: 'wasmy' });
    await core.close();
  });

  it('makes a nested run the worker has not taken its next run when the long one ends first, and queues it again when the worker dies', async () => {
    const { core, worker, long, workers, readyAll } = spinning();
    worker.polls = 50;
    const promoted = core.run({ ...request, code: 'promoted' }, undefined);
    const [promotedId] = runIds(worker, true);
    worker.hooks.message(done(runIds(worker, false)[0], 1));
    expect(await long).toMatchObject({ ok: true, value: 1 });
    // The worker reads the nested message as its next run; its answer is taken as usual.
    worker.hooks.message(done(promotedId, 'promoted'));
    expect(await promoted).toMatchObject({ ok: true, value: 'promoted' });

    const second = core.run(request, undefined);
    worker.polls = 50;
    const orphan = core.run({ ...request, code: 'orphan' }, undefined);
    const [, orphanId] = runIds(worker, true);
    expect(orphanId).toBeDefined();
    worker.hooks.crashed('the sandbox worker failed: gone');
    expect(await second).toMatchObject({ ok: false, code: 'sandbox-crashed' });
    readyAll();
    const replacement = workers.at(-1) as ScriptedWorker;
    expect(replacement).not.toBe(worker);
    // Nothing of a nested run leaves its worker unanswered: it runs again on the replacement.
    expect(runIds(replacement, false)).toEqual([orphanId]);
    replacement.hooks.message(done(orphanId, 'orphan'));
    expect(await orphan).toMatchObject({ ok: true, value: 'orphan' });
    await core.close();
  });

  it('answers a nested run cancelled at once, and ends the worker if it would still run it as its own', async () => {
    const { core, worker, long, workers, readyAll } = spinning();
    worker.polls = 50;
    const stop = new AbortController();
    const cancelled = core.run({ ...request, code: 'cancelled' }, undefined, stop.signal);
    expect(runIds(worker, true)).toHaveLength(1);
    stop.abort();
    expect(await cancelled).toMatchObject({ ok: false, code: 'cancelled' });
    worker.hooks.message(done(runIds(worker, false)[0], 1));
    expect(await long).toMatchObject({ ok: true, value: 1 });
    expect(worker.terminated).toBe(true);
    readyAll();
    const after = core.run({ ...request, code: 'after' }, undefined);
    const replacement = workers.at(-1) as ScriptedWorker;
    replacement.hooks.message(done(runIds(replacement, false)[0], 'after'));
    expect(await after).toMatchObject({ ok: true, value: 'after' });
    await core.close();
  });

  it('tells the workers while short work waits, starts a worker only for a run that cannot run nested once short work is quiet, and starts no more than `size` runs not yet known to be long at a time', async () => {
    const { core, worker, long, workers, readyAll, pressures } = spinning(3);
    worker.polls = 50;
    // A run given back (it needed a host call) waits for a worker; none starts while short work goes on.
    const hostCall = core.run({ ...request, code: 'host call' }, undefined);
    expect(pressures.at(-1)).toBe(true);
    const [hostCallId] = runIds(worker, true);
    worker.hooks.message({ type: 'requeue', runId: hostCallId, nestable: false });
    const short = core.run({ ...request, code: 'short' }, undefined);
    const [, shortId] = runIds(worker, true);
    expect(shortId).toBeDefined();
    expect(workers).toHaveLength(1);
    worker.hooks.message(done(shortId, 'short'));
    expect(await short).toMatchObject({ ok: true, value: 'short' });
    expect(workers).toHaveLength(1);
    vi.advanceTimersByTime(30);
    // Quiet, and the spinning run is long: the word goes off, and a worker starts for the waiting run (one: short runs need none).
    expect(pressures.at(-1)).toBe(false);
    expect(workers).toHaveLength(2);
    readyAll();
    const started = workers[1] as ScriptedWorker;
    expect(runIds(started, false)).toEqual([hostCallId]);
    started.hooks.message(done(hostCallId, 'host call'));
    expect(await hostCall).toMatchObject({ ok: true, value: 'host call' });
    worker.hooks.message(done(runIds(worker, false)[0], 1));
    expect(await long).toMatchObject({ ok: true, value: 1 });

    // Two free workers and two runs not yet known to be long: one starts on a worker of its own
    // (`size` is 1); the other waits, then starts once the first is known to be long.
    const before = [runIds(worker, false).length, runIds(started, false).length];
    const x = core.run({ ...request, code: 'x' }, undefined);
    const y = core.run({ ...request, code: 'y' }, undefined);
    const took = () => [runIds(worker, false).length - before[0]!, runIds(started, false).length - before[1]!];
    expect([...took()].sort()).toEqual([0, 1]);
    vi.advanceTimersByTime(5);
    expect([...took()].sort()).toEqual([0, 1]);
    const [xHost, yHost] = took()[0] === 1 ? [worker, started] : [started, worker];
    xHost.polls = 50;
    vi.advanceTimersByTime(5);
    expect(took()).toEqual([1, 1]);
    yHost.hooks.message(done(runIds(yHost, false).at(-1), 'y'));
    expect(await y).toMatchObject({ ok: true, value: 'y' });
    xHost.hooks.message(done(runIds(xHost, false).at(-1), 'x'));
    expect(await x).toMatchObject({ ok: true, value: 'x' });
    await core.close();
  });
});
