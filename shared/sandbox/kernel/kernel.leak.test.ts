// 1,000 invocations through the in-thread kernel must leave nothing behind: every run's runtime
// frees cleanly (quickjs-ng asserts on leaked objects when a runtime is freed, which the kernel
// reports as an unhealthy engine), and the engine's linear memory stops growing after warm-up.
import { describe, expect, it } from 'vitest';
import { NO_GRANTS, type KernelRunRequest } from '../../protocol/run.ts';
import { newBoundedQuickJsNg } from '../../testing/quickjs-engine.ts';
import { runKernel } from './kernel.ts';
import { SYSTEM_CLOCK } from './system-clock.ts';

const request: KernelRunRequest = {
  code: 'import { twice } from "@acme/math";\nconst secret = await getSecret("K").catch((e) => e.code);\nlet failed;\ntry { null.x; } catch (e) { failed = e.name; }\nconsole.log("run", secret);\n({ v: twice(input), secret, failed, bytes: new Uint8Array(16) })',
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
      digest: 'b'.repeat(64),
    },
  },
  inputs: { input: 21 },
  grants: NO_GRANTS,
  timeoutMs: 5000,
};

describe('kernel resource hygiene', () => {
  it('runs 1,000 invocations with clean runtime teardown and flat engine memory', async () => {
    const { engine, memory } = await newBoundedQuickJsNg();
    const powers = { engine, ...SYSTEM_CLOCK, hostCall: async () => ({ ok: true as const, value: null }) };
    let unhealthy = 0;
    let sizeAfterWarmup = 0;
    for (let i = 0; i < 1000; i++) {
      const outcome = await runKernel(request, powers);
      if (!outcome.healthy) unhealthy++;
      if (i === 0)
        expect(outcome.result).toMatchObject({
          ok: true,
          value: { v: 42, secret: 'capability-denied', failed: 'TypeError', bytes: { __sandboxBytes: 'AAAAAAAAAAAAAAAAAAAAAA==' } },
          logs: [{ level: 'log', text: 'run capability-denied' }],
        });
      if (i === 50) sizeAfterWarmup = memory.buffer.byteLength;
    }
    expect(unhealthy).toBe(0);
    expect(memory.buffer.byteLength).toBe(sizeAfterWarmup);
  }, 120_000);

  it('keeps the engine usable and flat after runs that fail in every way', async () => {
    const { engine, memory } = await newBoundedQuickJsNg();
    const powers = { engine, ...SYSTEM_CLOCK, hostCall: () => new Promise<never>(() => undefined) };
    const failing = [
      'while (true) {}',
      'const k = []; while (true) k.push(new Uint8Array(1 << 20));',
      'await getSecret("X")',
      'throw new Error("x")',
      'import x from "node:fs";',
      'syntax error here',
    ];
    let sizeAfterFirstRound = 0;
    for (let round = 0; round < 5; round++) {
      for (const code of failing) {
        const outcome = await runKernel({ ...request, code, grants: { ...NO_GRANTS, secrets: ['X'] }, timeoutMs: 50 }, powers);
        expect(outcome.result.ok).toBe(false);
        expect(outcome.healthy).toBe(true);
      }
      if (round === 0) sizeAfterFirstRound = memory.buffer.byteLength;
    }
    expect(memory.buffer.byteLength).toBe(sizeAfterFirstRound);
    const after = await runKernel(
      { ...request, grants: { ...NO_GRANTS, secrets: ['K'] } },
      { ...powers, hostCall: async () => ({ ok: true as const, value: 'k' }) },
    );
    expect(after.result).toMatchObject({ ok: true, value: { v: 42, secret: 'k', failed: 'TypeError' } });
  }, 120_000);
});
