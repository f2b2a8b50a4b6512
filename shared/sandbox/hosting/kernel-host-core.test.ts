// The kernel host core's rules, driven through scripted in-process workers so each branch is
// reached on purpose: workers that die before they are ready, a malformed message, cancel of a
// queued and of a running run, host calls and the run's abort signal. Real workers — a guest
// wedged in native code, messageerror, memory — are tested through the Node pool
// (electron/runtime/sandbox/*.test.ts) and the browser runner in Chromium (e2e).

import { describe, expect, it } from 'vitest';
import { NO_GRANTS, type HostCallResult, type KernelRunRequest } from '../../protocol/run.ts';
import { KernelHostCore, type KernelHostCall, type KernelWorker, type KernelWorkerHooks } from './kernel-host-core.ts';
import { fifoScheduler } from './scheduler.ts';

interface ScriptedWorker extends KernelWorker {
  readonly hooks: KernelWorkerHooks;
  readonly posted: Record<string, unknown>[];
  terminated: boolean;
}

interface Ports {
  readonly answer: (call: KernelHostCall, signal: AbortSignal) => Promise<HostCallResult>;
}

const request: KernelRunRequest = { code: '1', entries: {}, modules: {}, inputs: {}, grants: NO_GRANTS, timeoutMs: 1000 };
const receipt = { wallMs: 1, modules: [], calls: [], denied: [] };
const noPorts: Ports = { answer: async () => ({ ok: true, value: null }) };

function setup(size = 1) {
  const workers: ScriptedWorker[] = [];
  const core = new KernelHostCore<Ports>({
    size,
    scheduler: fifoScheduler,
    graceMs: 0,
    startWorker: (hooks) => {
      const worker: ScriptedWorker = {
        hooks,
        posted: [],
        terminated: false,
        postMessage: (message) => worker.posted.push(message as Record<string, unknown>),
        terminate: () => {
          worker.terminated = true;
        },
      };
      workers.push(worker);
      return worker;
    },
    runMessage: (runId, req) => ({ type: 'run', runId, request: req }),
    answer: (ports, call, signal) => ports.answer(call, signal()),
    wording: {
      crashed: (why) => `crashed: ${why}`,
      cannotStart: (why) => `cannot start: ${why}`,
      closedQueued: 'closed queued',
      closedRunning: 'closed running',
      side: 'test host',
    },
  });
  const last = () => workers.at(-1) as ScriptedWorker;
  const runIdOf = (worker: ScriptedWorker) => worker.posted.find((m) => m.type === 'run')?.runId as number;
  return { core, workers, last, runIdOf };
}

const tick = () => new Promise((resolve) => setTimeout(resolve, 0));

describe('kernel host core', () => {
  it('stops respawning after three workers die before ready, and answers every run with why', async () => {
    const { core, workers, last } = setup();
    const queued = core.run(request, noPorts);
    for (let i = 0; i < 3; i++) last().hooks.crashed(`boot ${i + 1} failed`);
    expect(await queued).toMatchObject({ ok: false, code: 'sandbox-crashed', message: 'cannot start: boot 3 failed', logs: [] });
    expect(workers).toHaveLength(3);
    expect(core.workerCount).toBe(0);
    expect(await core.run(request, noPorts)).toMatchObject({ ok: false, code: 'sandbox-crashed', message: 'cannot start: boot 3 failed' });
    expect(workers).toHaveLength(3);
  });

  it('counts a boot-failed message as a failed start, and a ready worker resets the count', async () => {
    const { core, workers, last } = setup();
    last().hooks.message({ type: 'boot-failed', message: 'no engine' });
    last().hooks.message({ type: 'boot-failed', message: 'no engine' });
    last().hooks.message({ type: 'ready' });
    last().hooks.crashed('died while ready');
    expect(workers).toHaveLength(4);
    expect(core.workerCount).toBe(1);
  });

  it('ends a run on a malformed message with the logs streamed so far, and replaces the worker', async () => {
    const { core, workers, last, runIdOf } = setup();
    last().hooks.message({ type: 'ready' });
    const running = core.run(request, noPorts);
    const first = last();
    first.hooks.message({ type: 'log', runId: runIdOf(first), entry: { level: 'log', text: 'so far' } });
    first.hooks.message({ type: 'done', runId: runIdOf(first), healthy: true, result: { ok: false, code: 'made-up-code', message: 'm', logs: [], receipt } });
    expect(await running).toMatchObject({
      ok: false,
      code: 'sandbox-crashed',
      message: 'crashed: the sandbox worker sent a malformed message',
      logs: [{ level: 'log', text: 'so far' }],
    });
    expect(first.terminated).toBe(true);
    expect(workers).toHaveLength(2);
  });

  it('drops a cancelled queued run and ends a cancelled running one, recycling its worker', async () => {
    const { core, workers, last, runIdOf } = setup();
    last().hooks.message({ type: 'ready' });
    const first = last();
    const stopRunning = new AbortController();
    const stopQueued = new AbortController();
    const running = core.run(request, noPorts, stopRunning.signal);
    const queued = core.run(request, noPorts, stopQueued.signal);
    const next = core.run(request, noPorts);
    stopQueued.abort();
    expect(await queued).toMatchObject({
      ok: false,
      code: 'cancelled',
      message: 'The run was stopped while it waited for the sandbox to be ready; none of its code ran.',
    });
    stopRunning.abort();
    expect(await running).toMatchObject({ ok: false, code: 'cancelled' });
    expect(first.terminated).toBe(true);
    expect(first.posted.filter((m) => m.type === 'run')).toHaveLength(1);
    const second = last();
    expect(workers).toHaveLength(2);
    second.hooks.message({ type: 'ready' });
    expect(second.posted).toEqual([{ type: 'run', runId: runIdOf(second), request }]);
    second.hooks.message({ type: 'done', runId: runIdOf(second), healthy: true, result: { ok: true, value: 2, logs: [], receipt } });
    expect(await next).toMatchObject({ ok: true, value: 2 });
  });

  it("answers host calls through the ports with the run's signal, which aborts when the run ends", async () => {
    const { core, last, runIdOf } = setup();
    last().hooks.message({ type: 'ready' });
    const signals: AbortSignal[] = [];
    const ports: Ports = {
      answer: async (call, signal) => {
        signals.push(signal);
        if (call.name === 'boom') throw new Error('port broke');
        return { ok: true, value: call.args };
      },
    };
    const running = core.run(request, ports);
    const worker = last();
    const runId = runIdOf(worker);
    worker.hooks.message({ type: 'host-call', runId, callId: 7, kind: 'capability', name: 'fetch', args: ['u'] });
    worker.hooks.message({ type: 'host-call', runId, callId: 8, kind: 'wasm', name: 'boom', args: [] });
    await tick();
    expect(worker.posted.slice(1)).toEqual([
      { type: 'host-result', runId, callId: 7, result: { ok: true, value: ['u'] } },
      { type: 'host-result', runId, callId: 8, result: { ok: false, code: 'internal', message: 'The test host failed to answer boom: port broke' } },
    ]);
    expect(signals[0]).toBe(signals[1]);
    expect(signals[0]?.aborted).toBe(false);
    worker.hooks.message({ type: 'done', runId, healthy: false, result: { ok: true, value: 1, logs: [], receipt } });
    expect(await running).toMatchObject({ ok: true, value: 1 });
    expect(signals[0]?.aborted).toBe(true);
    // Unhealthy: the worker is replaced even though the run succeeded.
    expect(worker.terminated).toBe(true);
  });

  it('ends a run at deadline + grace with its logs when the worker never answers', async () => {
    const { core, last, runIdOf } = setup();
    last().hooks.message({ type: 'ready' });
    const worker = last();
    const running = core.run({ ...request, timeoutMs: 5 }, noPorts);
    worker.hooks.message({ type: 'log', runId: runIdOf(worker), entry: { level: 'warn', text: 'w' } });
    expect(await running).toMatchObject({
      ok: false,
      code: 'timeout',
      message: 'The code ran longer than its 5 ms time limit and was stopped.',
      logs: [{ level: 'warn', text: 'w' }],
    });
    expect(worker.terminated).toBe(true);
  });

  it('answers queued and running runs when closed', async () => {
    const { core, last } = setup();
    last().hooks.message({ type: 'ready' });
    const running = core.run(request, noPorts);
    const queued = core.run(request, noPorts);
    await core.close();
    expect(await running).toMatchObject({ ok: false, code: 'sandbox-crashed', message: 'closed running' });
    expect(await queued).toMatchObject({ ok: false, code: 'sandbox-crashed', message: 'closed queued' });
    expect(last().terminated).toBe(true);
  });
});
