// After a burst the pool gives its threads back (issue 30), with real worker threads: a burst whose
// runs cannot run nested, beside long runs holding the kept workers, starts every extra worker up
// to the cap; once the burst is over the pool is back to its kept size, and a second burst starts
// them again and shrinks again. Workers are counted, never timed (the retire delay is the option).

import { afterAll, describe, expect, it, vi } from 'vitest';
import { NO_GRANTS, type HostCallResult, type KernelRunRequest, type RunResult } from '../../../shared/protocol/run.ts';
import { SandboxPool, type SandboxHostPorts } from './sandbox-pool.ts';
import { startRun } from '../../testing/started-run.ts';

const request = (code: string, grants = NO_GRANTS): KernelRunRequest => ({ code, entries: {}, modules: {}, inputs: {}, grants, timeoutMs: 20_000 });

/**
 * A run that computes past the nested budget before its host call, so it cannot run nested (its
 * nested try is given back at its polls, before the call): it needs a worker of its own.
 */
const CALLS_HOME = request('let i = 0;\nwhile (i < 3000000) i++;\nreturn (await getSecret("K")).length;', { ...NO_GRANTS, secrets: ['K'] });

const outcome = (result: RunResult): unknown => (result.ok ? result.value : result.code);

/** Host ports whose answers wait until `release`; `asked` counts the calls that reached the host. */
function heldAnswers() {
  const waiting: ((result: HostCallResult) => void)[] = [];
  const ports: SandboxHostPorts = { capability: () => new Promise<HostCallResult>((resolve) => waiting.push(resolve)) };
  return {
    ports,
    get asked() {
      return waiting.length;
    },
    release: () => {
      for (const resolve of waiting.splice(0)) resolve({ ok: true, value: 'value' });
    },
  };
}

describe('SandboxPool after a burst', () => {
  const pool = new SandboxPool({ size: 2, maxWorkers: 5, idleRetireMs: 200 });
  afterAll(() => pool.close());

  /** Two loops hold the kept workers; three runs waiting on the host hold one extra worker each. */
  async function burst(): Promise<void> {
    const loops = [startRun(pool, request('while (true) {}')), startRun(pool, request('while (true) {}'))];
    const answers = heldAnswers();
    const calls = Array.from({ length: 3 }, () => startRun(pool, CALLS_HOME, answers.ports));
    // Each call reached the host from a worker of its own while both loops still run: five workers.
    await vi.waitFor(() => expect(answers.asked).toBe(3), { timeout: 30_000, interval: 20 });
    expect(loops.filter((l) => l.answered)).toEqual([]);
    expect(pool.workerCount).toBe(5);
    answers.release();
    expect((await Promise.all(calls.map((c) => c.result))).map(outcome)).toEqual([5, 5, 5]);
    for (const l of loops) l.stop.abort();
    expect((await Promise.all(loops.map((l) => l.result))).map(outcome)).toEqual(['cancelled', 'cancelled']);
  }

  it('starts every extra worker for runs that cannot run nested, then retires them all once idle: back to its kept size', async () => {
    await Promise.all([pool.run(request('1')), pool.run(request('2'))]);
    expect(pool.workerCount).toBe(2);
    const startedBefore = pool.started;
    await burst();
    await vi.waitFor(() => expect(pool.workerCount).toBe(2), { timeout: 30_000, interval: 20 });
    // Three extra workers and the two replacements of the cancelled loops' workers started.
    expect(pool.started - startedBefore).toBe(5);
    // The kept workers still serve.
    expect((await Promise.all([pool.run(request('3')), pool.run(request('4'))])).map(outcome)).toEqual([3, 4]);
  }, 90_000);

  it('grows again for the next burst and shrinks back again', async () => {
    await burst();
    await vi.waitFor(() => expect(pool.workerCount).toBe(2), { timeout: 30_000, interval: 20 });
    expect(outcome(await pool.run(request('6 * 7')))).toBe(42);
    expect(pool.workerCount).toBe(2);
  }, 90_000);
});
