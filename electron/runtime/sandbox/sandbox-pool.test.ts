// The pool as the outer watchdog and the owner of workers: engine limits come back as tagged
// results, work the interrupt cannot stop is ended by terminating the worker, a replacement
// starts at once, and nothing from one invocation is visible to the next.
import { afterAll, describe, expect, it } from 'vitest';
import { NO_GRANTS, type KernelRunRequest } from '../../../shared/protocol/run.ts';
import { SandboxPool } from './sandbox-pool.ts';

const pool = new SandboxPool({ size: 1, graceMs: 500 });
afterAll(() => pool.close());

function request(code: string, timeoutMs = 2000): KernelRunRequest {
  return { code, entries: {}, modules: {}, inputs: {}, grants: NO_GRANTS, timeoutMs };
}

describe('SandboxPool', () => {
  it('runs trivial code and returns value, logs and receipt', async () => {
    const result = await pool.run(request('console.log("hello", { a: 1 });\n40 + 2'));
    expect(result).toMatchObject({ ok: true, value: 42, logs: [{ level: 'log', text: 'hello {"a":1}' }] });
    expect(result.receipt.modules).toEqual([]);
  });

  it('turns deep recursion into a clean stack-overflow in the worker', async () => {
    const result = await pool.run(request('function down(n) { return down(n + 1) + 1; }\ndown(0)'));
    expect(result).toMatchObject({ ok: false, code: 'stack-overflow', message: 'The code recursed too deeply and was stopped.' });
    expect(pool.workerCount).toBe(1);
  });

  it('stops a memory bomb at the 64 MB limit', async () => {
    const result = await pool.run(request('const keep = [];\nwhile (true) keep.push(new Uint8Array(4 << 20));', 10_000));
    expect(result).toMatchObject({ ok: false, code: 'memory-limit', message: 'The code used more than the 64 MB sandbox memory limit and was stopped.' });
  });

  it('stops a huge JSON.stringify', async () => {
    const result = await pool.run(request('JSON.stringify(new Array(1e7).fill("aaaaaaaaaaaaaaaa"))', 10_000));
    expect(result.ok).toBe(false);
    if (!result.ok) expect(['memory-limit', 'timeout']).toContain(result.code);
  });

  it('stops a catastrophic regular expression at the deadline', async () => {
    const result = await pool.run(request('/(a+)+$/.test("a".repeat(40) + "b")', 300));
    expect(result).toMatchObject({ ok: false, code: 'timeout' });
  });

  it('keeps prototype pollution out of the next invocation', async () => {
    const first = await pool.run(request('Object.prototype.polluted = "yes";\nArray.prototype.map = null;\n({}).polluted'));
    expect(first).toMatchObject({ ok: true, value: 'yes' });
    const second = await pool.run(request('[typeof ({}).polluted, typeof [].map]'));
    expect(second).toMatchObject({ ok: true, value: ['undefined', 'function'] });
  });

  it('answers a host call that never returns with a timeout, keeping its worker', async () => {
    const startedBefore = pool.started;
    const result = await pool.run(request('await getSecret("SLOW")', 200), {
      capability: () => new Promise(() => undefined),
    });
    // The kernel's own deadline answers first; the pool still has its worker.
    expect(result).toMatchObject({ ok: false, code: 'capability-denied' });
    const granted = await pool.run(
      { ...request('await getSecret("SLOW")', 200), grants: { ...NO_GRANTS, secrets: ['SLOW'] } },
      {
        capability: () => new Promise(() => undefined),
      },
    );
    expect(granted).toMatchObject({ ok: false, code: 'timeout', message: 'The code ran longer than its 200 ms time limit and was stopped.' });
    expect(pool.started).toBe(startedBefore);
    const after = await pool.run(request('1'));
    expect(after).toMatchObject({ ok: true, value: 1 });
  });

  it('terminates a worker wedged in one native call at deadline + grace, and replaces it', async () => {
    // JSON.stringify of a large array is a single native call: the interrupt handler cannot fire
    // inside it, so only the pool's watchdog can stop it on time.
    const strict = new SandboxPool({ size: 1, graceMs: 1 });
    try {
      await strict.run(request('1'));
      const startedBefore = strict.started;
      const result = await strict.run(request('const big = new Array(2e6).fill("abcdefgh");\nJSON.stringify(big).length', 20));
      expect(result).toMatchObject({ ok: false, code: 'timeout', message: 'The code ran longer than its 20 ms time limit and was stopped.' });
      expect(strict.started).toBe(startedBefore + 1);
      expect(strict.workerCount).toBe(1);
      const after = await strict.run(request('"still serving"'));
      expect(after).toMatchObject({ ok: true, value: 'still serving' });
    } finally {
      await strict.close();
    }
  });
});
