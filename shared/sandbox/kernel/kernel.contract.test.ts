// Runs the kernel contract fixtures through the in-thread kernel. The worker pool runs the same
// file (electron/runtime/sandbox/sandbox-pool.contract.test.ts), and so will the browser runner.
import { describe, expect, it } from 'vitest';
import contract from '../../../fixtures/kernel/contract.json' with { type: 'json' };
import { loadQuickJsNg } from '../../testing/quickjs-engine.ts';
import { runKernel } from './kernel.ts';
import { SYSTEM_CLOCK } from './system-clock.ts';
import { FixtureFileSchema, fixtureAnswer, fixtureProblems, fixtureRequest } from '../../testing/kernel-fixture.ts';

const file = FixtureFileSchema.parse(contract);

describe('kernel contract fixtures (in-thread)', () => {
  for (const testCase of file.cases) {
    it(`${testCase.name}: ${testCase.why}`, async () => {
      const engine = await loadQuickJsNg();
      const outcome = await runKernel(fixtureRequest(file, testCase), {
        engine,
        ...SYSTEM_CLOCK,
        hostCall: async (kind, name, args) => fixtureAnswer(testCase, kind === 'wasm' ? `wasm:${String(args[0])}` : name),
      });
      expect(outcome.healthy).toBe(true);
      expect(fixtureProblems(testCase, outcome.result)).toEqual([]);
    });
  }
});
