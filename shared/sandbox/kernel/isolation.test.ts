// Isolation (issue 31) through the in-thread kernel: the fixture file fixtures/kernel/isolation.json,
// which the worker pool (fixture-dir.contract.test.ts) and Chromium (e2e/parity.e2e.test.ts) run too.
import { describe, expect, it } from 'vitest';
import isolation from '../../../fixtures/kernel/isolation.json' with { type: 'json' };
import { loadQuickJsNg } from '../../testing/quickjs-engine.ts';
import { FixtureFileSchema, fixtureAnswer, fixtureWasmHost, fixtureProblems, fixtureRequest } from '../../testing/kernel-fixture.ts';
import { runKernel } from './kernel.ts';
import { SYSTEM_CLOCK } from './system-clock.ts';

const file = FixtureFileSchema.parse(isolation);

describe('isolation fixtures (in-thread)', () => {
  for (const testCase of file.cases) {
    it(`${testCase.name}: ${testCase.why}`, async () => {
      const engine = await loadQuickJsNg();
      const wasm = await fixtureWasmHost(file);
      const outcome = await runKernel(fixtureRequest(file, testCase), {
        engine,
        ...SYSTEM_CLOCK,
        hostCall: async (kind, name, args) => (kind === 'wasm' ? wasm(name, String(args[0]), args[1] as number[]) : fixtureAnswer(testCase, name)),
      });
      expect(outcome.healthy).toBe(true);
      expect(fixtureProblems(testCase, outcome.result)).toEqual([]);
    });
  }
});
