// Short runs nested in a long one (issue 17), with real worker threads and real guests, on a pool
// of one worker that may not add any: whatever answers while that worker's run spins was run
// nested inside it, at its interrupt polls. Nested runs answer as they would alone, see nothing
// of the long run or of each other, and the long run still ends as it would alone. A nested run's
// capability call is answered there (the host asked once); a try that runs past the nested budget
// is given back with nothing of it sent anywhere. Order and completion are asserted, never durations.

import { afterAll, describe, expect, it } from 'vitest';
import { NO_GRANTS, type KernelRunRequest, type RunResult } from '../../../shared/protocol/run.ts';
import { SandboxPool } from './sandbox-pool.ts';
import { startRun } from '../../testing/started-run.ts';

function request(code: string, timeoutMs = 20_000): KernelRunRequest {
  return { code, entries: {}, modules: {}, inputs: {}, grants: NO_GRANTS, timeoutMs };
}

const outcome = (result: RunResult): unknown => (result.ok ? result.value : result.code);

describe('SandboxPool nesting short runs in a long one', () => {
  const pool = new SandboxPool({ size: 1, maxWorkers: 1 });
  afterAll(() => pool.close());

  it('answers short runs while its only worker spins, and the spinning run still ends as it does alone', async () => {
    expect(outcome(await pool.run(request('while (true) {}', 300)))).toBe('timeout');
    const startedBefore = pool.started;
    const loop = startRun(pool, request('while (true) {}', 3000));
    const ordinary = await Promise.all(Array.from({ length: 12 }, (_, i) => pool.run(request(`${i} * 3`))));
    expect(ordinary.map(outcome)).toEqual(Array.from({ length: 12 }, (_, i) => i * 3));
    expect(loop.answered).toBe(false);
    expect(await loop.result).toMatchObject({ ok: false, code: 'timeout', message: 'The code ran longer than its 3000 ms time limit and was stopped.' });
    // No worker was added or replaced: the one worker answered them all.
    expect(pool.started).toBe(startedBefore);
  });

  it('gives back a nested memory bomb before its sandbox grows: the worker goes on taking nested runs, and the bomb ends as alone', async () => {
    const bomb = 'const keep = [];\nwhile (true) keep.push(new Array(1 << 16).fill(keep.length));';
    expect(outcome(await pool.run(request(bomb)))).toBe('memory-limit');
    const loop = startRun(pool, request('while (true) {}', 4000));
    // A short run first: once it answers, the loop is polling and takes nested runs.
    expect(await pool.run(request('"nested"'))).toMatchObject({ ok: true, value: 'nested' });
    const bombed = startRun(pool, request(bomb));
    // Had the bomb grown the nested sandbox, the worker would take no nested run until the loop ends.
    const after = await Promise.all(Array.from({ length: 6 }, (_, i) => pool.run(request(`${i} + 100`))));
    expect(after.map(outcome)).toEqual([100, 101, 102, 103, 104, 105]);
    expect(loop.answered).toBe(false);
    expect(bombed.answered).toBe(false);
    loop.stop.abort();
    expect(outcome(await loop.result)).toBe('cancelled');
    // Given back, it ran as its own run once the worker was free, with the whole guest limit.
    expect(outcome(await bombed.result)).toBe('memory-limit');
  });

  it('keeps runs apart: a nested run sees nothing the long run or the nested run before it left', async () => {
    const loop = startRun(pool, request('globalThis.secret = "A";\nObject.prototype.polluted = 1;\nwhile (true) {}', 10_000));
    const first = await pool.run(request('globalThis.leak = "B";\nArray.prototype.map = null;\n[typeof secret, typeof ({}).polluted]'));
    const second = await pool.run(request('[typeof leak, typeof secret, typeof [].map, typeof ({}).polluted]'));
    expect(loop.answered).toBe(false);
    expect(first).toMatchObject({ ok: true, value: ['undefined', 'undefined'] });
    expect(second).toMatchObject({ ok: true, value: ['undefined', 'undefined', 'function', 'undefined'] });
    loop.stop.abort();
    expect(outcome(await loop.result)).toBe('cancelled');
  });

  it("answers a nested run's capability call inside the long run: the host is asked once, the run answers before the long one ends", async () => {
    const loop = startRun(pool, request('while (true) {}', 1500));
    // A short run first: once it answers, the loop is polling and takes nested runs.
    expect(await pool.run(request('"nested"'))).toMatchObject({ ok: true, value: 'nested' });
    const asked: string[] = [];
    const secret = await pool.run(
      { ...request('const value = await getSecret("TOKEN");\nreturn value.length;'), grants: { ...NO_GRANTS, secrets: ['TOKEN'] } },
      {
        capability: async (name, args) => {
          asked.push(`${name}(${JSON.stringify(args)})`);
          return { ok: true, value: 'shh-secret' };
        },
      },
    );
    if (!secret.ok) console.log('SECRET', JSON.stringify(secret));
    expect(secret).toMatchObject({ ok: true, value: 10 });
    expect(secret.receipt.calls).toEqual([{ kind: 'capability', name: 'getSecret', ok: true }]);
    expect(asked).toEqual(['getSecret(["TOKEN"])']);
    expect(loop.answered).toBe(false);
    // A denied call is answered nested as well, with the same denial as alone.
    const denied = await pool.run(request('try { await getSecret("OTHER"); } catch (e) { return e.code; }'));
    expect(denied).toMatchObject({ ok: true, value: 'capability-denied' });
    expect(loop.answered).toBe(false);
    expect(outcome(await loop.result)).toBe('timeout');
  });

  it('runs a nested run that spins after its capability call to its own time limit, as alone; the long run still ends as alone', async () => {
    const loop = startRun(pool, request('while (true) {}', 1500));
    expect(await pool.run(request('"nested"'))).toMatchObject({ ok: true, value: 'nested' });
    const ports = { capability: async () => ({ ok: true as const, value: 'v' }) };
    const spinAfter = { ...request('await getSecret("TOKEN");\nwhile (true) {}', 300), grants: { ...NO_GRANTS, secrets: ['TOKEN'] } };
    const nested = await pool.run(spinAfter, ports);
    expect(nested).toMatchObject({ ok: false, code: 'timeout', message: 'The code ran longer than its 300 ms time limit and was stopped.' });
    expect(loop.answered).toBe(false);
    expect(await loop.result).toMatchObject({ ok: false, code: 'timeout', message: 'The code ran longer than its 1500 ms time limit and was stopped.' });
    const alone = await pool.run(spinAfter, ports);
    expect(alone).toMatchObject({ ok: false, code: 'timeout', message: nested.ok ? '' : nested.message });
  });

  it('gives back a nested run that runs past the nested budget: it runs as usual to the same end, and short runs still pass', async () => {
    const loop = startRun(pool, request('while (true) {}', 1500));
    expect(await pool.run(request('"nested"'))).toMatchObject({ ok: true, value: 'nested' });
    const counting = startRun(pool, request('let i = 0;\nwhile (i < 3000000) i++;\ni'));
    const logged = startRun(pool, request('for (let i = 0; i < 100000; i++) console.log("line", i);\n"logged"'));
    expect(await pool.run(request('"passes"'))).toMatchObject({ ok: true, value: 'passes' });
    expect(loop.answered).toBe(false);
    expect(await counting.result).toMatchObject({ ok: true, value: 3_000_000 });
    const flood = await logged.result;
    expect(flood).toMatchObject({ ok: true, value: 'logged' });
    // Its console entries are the usual run's, none twice from the try given back.
    const alone = await pool.run(request('for (let i = 0; i < 100000; i++) console.log("line", i);\n"logged"'));
    expect(flood.logs).toEqual(alone.logs);
    expect(loop.answered).toBe(true);
  });
});
