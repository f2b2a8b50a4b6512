// Stop from the UI reaches the pool as an abort signal: a running guest that would loop until its
// deadline ends at once with `cancelled` and the logs it wrote, its worker is replaced (guest code
// is only certainly stopped by ending its thread), and the pool keeps its size and runs the next
// job; a run cancelled while queued never reaches a worker.
import { afterAll, describe, expect, it } from 'vitest';
import { NO_GRANTS, type KernelRunRequest } from '../../../shared/protocol/run.ts';
import { SandboxPool } from './sandbox-pool.ts';

const pool = new SandboxPool({ size: 1, graceMs: 500 });
afterAll(() => pool.close());

function request(code: string, timeoutMs = 20_000): KernelRunRequest {
  return { code, entries: {}, modules: {}, inputs: {}, grants: NO_GRANTS, timeoutMs };
}

const LOOP = 'console.log("started");\nwhile (true) {}';

describe('SandboxPool cancel', () => {
  it('ends a running loop with cancelled long before its deadline, recycles the worker, and runs the next job', async () => {
    await pool.run(request('1'));
    const startedBefore = pool.started;
    const stop = new AbortController();
    const running = pool.run(request(LOOP), {}, stop.signal);
    // Cancel once the guest has started (its first log arrives).
    await new Promise((resolve) => setTimeout(resolve, 300));
    const t0 = performance.now();
    stop.abort();
    const result = await running;
    const tookMs = performance.now() - t0;
    expect(result).toMatchObject({
      ok: false,
      code: 'cancelled',
      message: 'The run was stopped before it finished.',
      logs: [{ level: 'log', text: 'started' }],
    });
    expect(tookMs).toBeLessThan(1000);
    expect(pool.started).toBe(startedBefore + 1);
    expect(pool.workerCount).toBe(1);
    expect(await pool.run(request('6 * 7'))).toMatchObject({ ok: true, value: 42 });
  });

  it('drops a queued run without starting a worker for it, and refuses an already-aborted signal', async () => {
    const first = new AbortController();
    const busy = pool.run(request(LOOP), {}, first.signal);
    const queued = new AbortController();
    const waiting = pool.run(request('"never"'), {}, queued.signal);
    const startedBefore = pool.started;
    queued.abort();
    expect(await waiting).toMatchObject({ ok: false, code: 'cancelled' });
    expect(pool.started).toBe(startedBefore);
    first.abort();
    expect(await busy).toMatchObject({ ok: false, code: 'cancelled' });
    const aborted = new AbortController();
    aborted.abort();
    expect(await pool.run(request('1'), {}, aborted.signal)).toMatchObject({ ok: false, code: 'cancelled' });
  });
});
