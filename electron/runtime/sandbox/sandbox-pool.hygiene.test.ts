// The pool over many invocations and over dying workers: worker count stays constant, nothing
// accumulates on the main thread, and a worker that dies becomes a tagged result plus a
// replacement, never a crash of the process.
import { afterAll, describe, expect, it } from 'vitest';
import { NO_GRANTS, type KernelRunRequest } from '../../../shared/protocol/run.ts';
import { SandboxPool } from './sandbox-pool.ts';

const request: KernelRunRequest = {
  code: 'import { twice } from "@acme/math";\nconsole.log("n", input);\nlet s = 0; for (let i = 0; i < 1000; i++) s += i;\n({ v: twice(input), s, bytes: new Uint8Array(8) })',
  entries: { '@acme/math': 'js:math' },
  modules: {
    'js:math': {
      moduleId: 'js:math',
      kind: 'js',
      packName: '@acme/math',
      packVersion: '1.0.0',
      displayName: '@acme/math',
      source: 'export const twice = (x) => x * 2;\n',
      imports: {},
      digest: 'd'.repeat(64),
    },
  },
  inputs: { input: 21 },
  grants: NO_GRANTS,
  timeoutMs: 5000,
};

describe('SandboxPool hygiene', () => {
  const pool = new SandboxPool({ size: 2 });
  afterAll(() => pool.close());

  it('runs 1,000 invocations with a constant worker count and no main-thread growth', async () => {
    const first = await pool.run(request);
    expect(first).toMatchObject({ ok: true, value: { v: 42, s: 499500 }, logs: [{ level: 'log', text: 'n 21' }] });
    const started = pool.started;
    let failures = 0;
    let heapAt100 = 0;
    for (let batch = 0; batch < 100; batch++) {
      const results = await Promise.all(Array.from({ length: 10 }, () => pool.run(request)));
      failures += results.filter((r) => !r.ok).length;
      expect(pool.workerCount).toBe(2);
      if (batch === 10) heapAt100 = process.memoryUsage().heapUsed;
    }
    expect(failures).toBe(0);
    expect(pool.started).toBe(started);
    expect(pool.workerCount).toBe(2);
    // Garbage collection timing makes heap figures noisy; growth proportional to 900 runs is not.
    expect(process.memoryUsage().heapUsed - heapAt100).toBeLessThan(32 * 1024 * 1024);
  }, 300_000);
});

describe('SandboxPool with workers that die', () => {
  it('answers sandbox-crashed and keeps the pool at size', async () => {
    const crashing = new SandboxPool({ size: 1, workerEntry: new URL('../../../fixtures/kernel/crashing-worker.mjs', import.meta.url) });
    try {
      for (let i = 0; i < 3; i++) {
        const result = await crashing.run(request);
        expect(result).toMatchObject({ ok: false, code: 'sandbox-crashed', message: 'The sandbox worker failed: engine blew up on the host side', logs: [] });
        expect(crashing.workerCount).toBe(1);
      }
      expect(crashing.started).toBe(4);
    } finally {
      await crashing.close();
    }
    expect(crashing.workerCount).toBe(0);
  }, 60_000);
});
