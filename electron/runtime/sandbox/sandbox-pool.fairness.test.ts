// Fairness under hostile load (issue 17), with real worker threads and real guests: runs spinning
// to a far deadline no longer stall ordinary runs submitted with them (those run nested in the
// spinning ones; an extra worker starts, up to the cap, for a run that cannot, and retires once
// idle); a long run held while short runs use the
// cores returns what it returns alone, even when it needs most of its time limit; a held run can
// still be stopped, and closing the pool ends held workers too. Order and completion are
// asserted, never durations.

import { afterAll, describe, expect, it, vi } from 'vitest';
import { NO_GRANTS, type KernelRunRequest, type RunResult } from '../../../shared/protocol/run.ts';
import { SandboxPool } from './sandbox-pool.ts';
import { startRun } from '../../testing/started-run.ts';

function request(code: string, timeoutMs = 20_000): KernelRunRequest {
  return { code, entries: {}, modules: {}, inputs: {}, grants: NO_GRANTS, timeoutMs };
}

const LOOP = 'while (true) {}';
/** Counts to `n` in guest bytecode: long enough to be held, with a value that shows any change. */
const count = (n: number) => `let i = 0;\nwhile (i < ${n}) i++;\ni`;

/** Runs started with a stop each, and whether each has answered. */
const startAll = (pool: SandboxPool, codes: readonly string[], timeoutMs?: number) => codes.map((code) => startRun(pool, request(code, timeoutMs)));

const outcome = (result: RunResult): unknown => (result.ok ? result.value : result.code);

describe('SandboxPool under hostile load', () => {
  const pool = new SandboxPool({ size: 2, maxWorkers: 5, idleRetireMs: 200 });
  afterAll(() => pool.close());

  it('answers ordinary runs while loops spinning to their deadline still run, starting no worker for them; a run that cannot run nested gets one, within the cap', async () => {
    await Promise.all([pool.run(request('0')), pool.run(request('0'))]);
    const startedBefore = pool.started;
    const hostile = startAll(pool, [LOOP, LOOP]);
    const ordinary = await Promise.all(Array.from({ length: 20 }, (_, i) => pool.run(request(`${i} * 3`))));
    expect(ordinary.map(outcome)).toEqual(Array.from({ length: 20 }, (_, i) => i * 3));
    expect(hostile.filter((h) => h.answered)).toEqual([]);
    // The loops hold both workers; the short runs ran nested in them.
    expect(pool.started).toBe(startedBefore);
    // A run with a host call runs nested too: its call is answered there, and no worker starts for it.
    const secret = await pool.run(
      { ...request('return (await getSecret("K")).length;'), grants: { ...NO_GRANTS, secrets: ['K'] } },
      { capability: async () => ({ ok: true, value: 'value' }) },
    );
    expect(secret).toMatchObject({ ok: true, value: 5 });
    expect(pool.started).toBe(startedBefore);
    // A run that computes past the nested budget cannot run nested: a worker starts for it, within the cap.
    expect(await pool.run(request(count(3_000_000)))).toMatchObject({ ok: true, value: 3_000_000 });
    expect(hostile.filter((h) => h.answered)).toEqual([]);
    expect(pool.workerCount).toBeGreaterThan(2);
    expect(pool.workerCount).toBeLessThanOrEqual(5);
    for (const h of hostile) h.stop.abort();
    const stopped = await Promise.all(hostile.map((h) => h.result));
    expect(stopped.map(outcome)).toEqual(['cancelled', 'cancelled']);
    await vi.waitFor(() => expect(pool.workerCount).toBe(2), { timeout: 20_000, interval: 50 });
  });

  it('returns the same value from a run held past its own time limit while short runs go', async () => {
    const alone = await pool.run(request(count(2_000_000)));
    expect(alone).toMatchObject({ ok: true, value: 2_000_000 });
    // A limit the run needs a good part of (a third, or less on a busy machine) …
    const limitMs = Math.ceil(3 * Math.max(alone.receipt.wallMs, 50));
    const [long] = startAll(pool, [count(2_000_000)], limitMs);
    // … and short runs from eight callers, each submitting its next as its last answers, for longer
    // than that limit: both ordinary workers always have one, so the long run is held throughout.
    const start = performance.now();
    const caller = async () => {
      while (performance.now() - start < 1.5 * limitMs) expect(await pool.run(request('"short"'))).toMatchObject({ ok: true, value: 'short' });
    };
    await Promise.all(Array.from({ length: 8 }, caller));
    // Held past its limit and still going: the held time was not counted against it.
    expect(long!.answered).toBe(false);
    expect(await long!.result).toMatchObject({ ok: true, value: 2_000_000 });
  });

  it('stops a held run when cancelled, and close() ends held workers', async () => {
    const held = startAll(pool, [LOOP, LOOP, LOOP]);
    // Short runs while the loops go long; then two short ones in flight, which hold all three.
    for (let i = 0; i < 10; i++) expect(await pool.run(request(String(i)))).toMatchObject({ ok: true, value: i });
    const inFlight = [pool.run(request(count(300_000))), pool.run(request(count(300_000)))];
    held[0]!.stop.abort();
    expect(await held[0]!.result).toMatchObject({ ok: false, code: 'cancelled', message: 'The run was stopped before it finished.' });
    expect((await Promise.all(inFlight)).map(outcome)).toEqual([300_000, 300_000]);
    expect(await pool.run(request('"after"'))).toMatchObject({ ok: true, value: 'after' });
    for (const h of held.slice(1)) h.stop.abort();
    await Promise.all(held.map((h) => h.result));

    const closing = new SandboxPool({ size: 1, maxWorkers: 3 });
    const loops = startAll(closing, [LOOP, LOOP]);
    for (let i = 0; i < 5; i++) await closing.run(request(String(i)));
    // One short run in flight on the one ordinary worker: both loops are held as the pool closes.
    const last = closing.run(request(count(300_000)));
    await closing.close();
    expect(closing.workerCount).toBe(0);
    expect((await Promise.all([...loops.map((l) => l.result), last])).map(outcome)).toEqual(['sandbox-crashed', 'sandbox-crashed', 'sandbox-crashed']);
  });
});
